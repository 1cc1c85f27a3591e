import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { PICKS_BIN, startPicksServer } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";

const run = promisify(execFile);

/** `used` as the RateLimit header of an answer tells it: quota minus remaining. */
function usedOf(response: Response): number | undefined {
  const match = /r=(\d+)/.exec(response.headers.get("ratelimit") ?? "");
  return match ? 5000 - Number(match[1]) : undefined;
}

const SUBMISSION = {
  runtime_name: "Loadtest Runtime",
  vendor: "Example Labs",
  url: "https://runtime.invalid/docs",
  description:
    "An agent runtime with sandboxed tool calls, human approval gates and an audit log of every action.",
  contact_email: "owner@example.org",
};

/** One verification; the address's count so far, as its RateLimit header tells it (limit 1,000,000). */
async function verifyOnce(url: string): Promise<number | undefined> {
  const verify = await fetch(`${url}/v1/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      subject: "Hello",
      body: "A short note.",
      recipient: "a@example.org",
      options: { llm_check: false },
    }),
  });
  const remaining = /r=(\d+)/.exec(verify.headers.get("ratelimit") ?? "")?.[1];
  return verify.status === 200 && remaining !== undefined ? 1_000_000 - Number(remaining) : undefined;
}

describe("a server killed with SIGKILL under mixed load, then restarted on the same SQLite database", () => {
  let publicDir: string;
  let stateDir: string;
  const keys: string[] = [];

  beforeAll(async () => {
    ({ publicDir } = await publishSampleDays());
    stateDir = await mkdtemp(join(tmpdir(), "picks-kill-"));
    for (let i = 0; i < 3; i++) {
      const { stdout } = await run(
        process.execPath,
        [
          PICKS_BIN,
          "keys",
          "issue",
          "--tier",
          "pro",
          "--email",
          `k${i}@example.org`,
          "--label",
          `load ${i}`,
          "--json",
        ],
        { env: { ...process.env, STATE_DIR: stateDir } },
      );
      keys.push((JSON.parse(stdout) as { key: string }).key);
    }
  });

  it("keeps every issued key and accepted submission, and never lets a count go down", async () => {
    const env = { STATE_DIR: stateDir, VERIFY_RATE_LIMIT: "1000000", SUBMIT_RATE_LIMIT: "1000000" };
    const server = await startPicksServer(publicDir, env);
    const highest = new Map<string, number>();
    let stop = false;
    const worker = async (key: string) => {
      while (!stop) {
        try {
          const response = await fetch(`${server.url}/v1/papers?days=1&limit=1`, {
            headers: { "x-api-key": key },
          });
          const used = usedOf(response);
          if (response.status === 200 && used !== undefined)
            highest.set(key, Math.max(highest.get(key) ?? 0, used));
        } catch {
          return; // the server is gone
        }
      }
    };
    const accepted: number[] = [];
    let verifyUsed = 0;
    const others = async () => {
      while (!stop) {
        try {
          await fetch(`${server.url}/v1/daily/latest`);
          const used = await verifyOnce(server.url);
          if (used !== undefined) verifyUsed = Math.max(verifyUsed, used);
          const submitted = await fetch(`${server.url}/v1/score/submit`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(SUBMISSION),
          });
          if (submitted.status === 202)
            accepted.push(((await submitted.json()) as { submission_id: number }).submission_id);
        } catch {
          return;
        }
      }
    };
    const load = [...keys.flatMap((key) => [worker(key), worker(key)]), others(), others()];
    // A key issued over HTTP during the load must survive the kill too.
    const issued = await fetch(`${server.url}/v1/keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "new@example.org", label: "during load" }),
    });
    expect(issued.status).toBe(201);
    const fresh = ((await issued.json()) as { key: string }).key;
    await new Promise((resolve) => setTimeout(resolve, 700));
    server.child.kill("SIGKILL");
    stop = true;
    await Promise.all(load);
    expect([...highest.values()].every((used) => used > 0)).toBe(true);

    expect(accepted.length).toBeGreaterThan(0);
    expect(verifyUsed).toBeGreaterThan(0);

    const again = await startPicksServer(publicDir, env);
    try {
      for (const key of keys) {
        const me = await fetch(`${again.url}/v1/me`, { headers: { "x-api-key": key } });
        expect(me.status).toBe(200);
        const { usage } = (await me.json()) as { usage: { used: number } };
        expect(usage.used).toBeGreaterThanOrEqual(highest.get(key) ?? 0);
      }
      expect((await fetch(`${again.url}/v1/me`, { headers: { "x-api-key": fresh } })).status).toBe(200);
      for (const id of accepted) {
        expect((await fetch(`${again.url}/v1/score/submission/${id}`)).status, `submission ${id}`).toBe(200);
      }
      expect(await verifyOnce(again.url)).toBeGreaterThan(verifyUsed);
    } finally {
      await again.stop();
    }
  });
});
