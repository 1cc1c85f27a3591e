import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { PICKS_BIN, runPicks, type Started, startPicksServer } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";

const run = promisify(execFile);
let env: NodeJS.ProcessEnv;

async function picks(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [PICKS_BIN, "keys", ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("picks keys", () => {
  beforeAll(async () => {
    env = { ...process.env, STATE_DIR: await mkdtemp(join(tmpdir(), "picks-keys-")) };
  });

  it("issues, lists without secrets, rotates and revokes", async () => {
    const issued = await picks([
      "issue",
      "--tier",
      "team",
      "--email",
      "ops@example.org",
      "--label",
      "dashboard",
    ]);
    expect(issued.code).toBe(0);
    const key = issued.stdout.split("\n")[0] as string;
    expect(key).toMatch(/^rp_labs_[0-9A-Za-z]{36}$/);
    expect(issued.stdout).toContain("shown only this once");

    const listed = await picks(["list", "--json"]);
    const records = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      tier: "team",
      email: "ops@example.org",
      label: "dashboard",
      revoked_at: null,
    });
    expect(listed.stdout).not.toContain(key);
    expect(records[0]).not.toHaveProperty("hash");

    const rotated = await picks(["rotate", key, "--json"]);
    expect(rotated.code).toBe(0);
    const fresh = JSON.parse(rotated.stdout) as { key: string; id: string };
    expect(fresh.key).not.toBe(key);

    const revoked = await picks(["revoke", fresh.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${fresh.id}`);
    const after = JSON.parse((await picks(["list", "--json"])).stdout) as Array<{
      revoked_at: string | null;
    }>;
    expect(after.map((record) => record.revoked_at !== null)).toEqual([true, true]);
  });

  it.each([
    [
      ["issue", "--tier", "free", "--email", "a@b.c", "--label", "x"],
      "Expected `--tier` to be one of pro, team, enterprise",
    ],
    [
      ["issue", "--tier", "pro", "--email", "ab", "--label", "x"],
      "Expected `--email` to have 3 to 120 characters",
    ],
    [["issue", "--tier", "pro", "--label", "x"], "required option '--email <email>' not specified"],
    [["revoke", "rp_labs_nothing"], "No key matches"],
  ])("picks keys %j exits 2 with a clear message", async (args, message) => {
    const result = await picks(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe("picks keys while two picks serve processes run on one SQLite database", () => {
  it("works directly: an issued key works at once on both, a revoked one stops on both within the key cache's 5 s", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-live-"));
    env = { ...process.env, STATE_DIR: stateDir };
    const { publicDir } = await publishSampleDays();
    const servers = await Promise.all([
      startPicksServer(publicDir, { STATE_DIR: stateDir }),
      startPicksServer(publicDir, { STATE_DIR: stateDir, WORKER: "off" }),
    ]);
    try {
      const issued = await picks([
        "issue",
        "--tier",
        "pro",
        "--email",
        "live@example.org",
        "--label",
        "live",
        "--json",
      ]);
      expect(issued.code, issued.stderr).toBe(0);
      const { key, id } = JSON.parse(issued.stdout) as { key: string; id: string };
      const me = (server: Started) => fetch(`${server.url}/v1/me`, { headers: { "x-api-key": key } });
      for (const server of servers) expect((await me(server)).status).toBe(200);

      const listed = JSON.parse((await picks(["list", "--json"])).stdout) as Array<Record<string, unknown>>;
      expect(listed.map((record) => record.id)).toContain(id);
      expect(listed.every((record) => !("hash" in record))).toBe(true);

      const revokedAt = Date.now();
      expect((await picks(["revoke", id])).code).toBe(0);
      for (const server of servers) {
        await vi.waitFor(async () => expect((await me(server)).status).toBe(401), {
          timeout: 7_000,
          interval: 100,
        });
      }
      expect(Date.now() - revokedAt).toBeLessThan(7_000);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  }, 30_000);
});

describe("a state database that cannot be used stops the command at start, naming the file", () => {
  it("a picks.db that is not SQLite: exit 1, the file untouched, for keys and serve alike", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-foreign-"));
    const file = join(stateDir, "picks.db");
    await writeFile(file, "these are notes, not a database\n");
    const { publicDir } = await publishSampleDays();
    for (const args of [
      ["keys", "list"],
      ["serve", "--port", "0", "--public", publicDir],
    ]) {
      const result = await runPicks(args, { ...process.env, STATE_DIR: stateDir });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(`Expected ${file} to be a SQLite state database`);
    }
    expect(await readFile(file, "utf8")).toBe("these are notes, not a database\n");
  });

  it("a state folder the service may not write: exit 1 with the folder named", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-readonly-"));
    await chmod(stateDir, 0o555);
    // Root writes a folder whatever its mode: the command runs as an ordinary user.
    const node = [process.execPath, PICKS_BIN, "keys", "list"];
    const command = process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--", ...node] : node;
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        command[0] as string,
        command.slice(1),
        { env: { ...process.env, STATE_DIR: stateDir, HOME: tmpdir() } },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Expected the state folder ${stateDir} to be writable`);
  });
});
