import { execFile } from "node:child_process";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { PICKS_BIN, startPicksServer } from "../helpers/processes.ts";
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

describe("picks keys while picks serve owns the file store", () => {
  it("goes through the running server: issued keys work at once, revoked ones stop at once", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-live-"));
    env = { ...process.env, STATE_DIR: stateDir };
    const { publicDir } = await publishSampleDays();
    const server = await startPicksServer(publicDir, { STATE_DIR: stateDir });
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
      const me = () => fetch(`${server.url}/v1/me`, { headers: { "x-api-key": key } });
      expect((await me()).status).toBe(200);

      const listed = JSON.parse((await picks(["list", "--json"])).stdout) as Array<Record<string, unknown>>;
      expect(listed.map((record) => record.id)).toContain(id);
      expect(listed.every((record) => !("hash" in record))).toBe(true);

      expect((await picks(["revoke", id])).code).toBe(0);
      expect((await me()).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("is not reachable without the token, or as a public route", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-closed-"));
    const { publicDir } = await publishSampleDays();
    const server = await startPicksServer(publicDir, { STATE_DIR: stateDir });
    try {
      const channel = JSON.parse(await readFile(join(stateDir, ".admin-channel.json"), "utf8")) as {
        token: string;
      };
      expect((await stat(join(stateDir, ".admin-channel.json"))).mode & 0o077).toBe(0);
      const list = (authorization?: string) =>
        fetch(`${server.url}/_admin/keys`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
          body: '{"action":"list"}',
        });
      expect((await list()).status).toBe(404);
      expect((await list(`Bearer ${"0".repeat(64)}`)).status).toBe(404);
      expect((await list(`Bearer ${channel.token}`)).status).toBe(200);
    } finally {
      await server.stop();
    }
    await expect(stat(join(stateDir, ".admin-channel.json"))).rejects.toThrow();
  });
});

describe("a server killed while its operator channel is open", () => {
  it("restarts on the same state folder", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-keys-killed-"));
    const { publicDir } = await publishSampleDays();
    const first = await startPicksServer(publicDir, { STATE_DIR: stateDir });
    const exited = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await exited;
    const again = await startPicksServer(publicDir, { STATE_DIR: stateDir });
    expect((await fetch(`${again.url}/health`)).status).toBe(200);
    await again.stop();
  });
});
