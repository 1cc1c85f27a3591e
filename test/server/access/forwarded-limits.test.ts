import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTrustProxy } from "../../../server/access/client-ip.ts";
import { type Call, clientFor, MODES, postJson } from "../../helpers/app-client.ts";
import { PICKS_BIN, type Started, startPicksServer } from "../../helpers/processes.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { SUBMISSION, submissionContext } from "../submissions/helpers.ts";

// Regression tests for issue 15, items 1 and 2: every IPv6 spelling of one /64 was a new client, and
// an X-Forwarded-For entry with a port was skipped, so the client's own left entry was counted.

let publicDir: string;
beforeAll(async () => {
  ({ publicDir } = await publishSampleDays());
});

describe("picks serve with TRUST_PROXY=1, on loopback", () => {
  let server: Started;
  beforeAll(async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-forwarded-"));
    server = await startPicksServer(publicDir, {
      STATE_DIR: stateDir,
      STATE_STORE: "sqlite",
      TRUST_PROXY: "1",
      IPV6_PREFIX: "",
      KEY_ISSUE_LIMIT: "1",
      WORKER: "off",
    });
  }, 60_000);
  afterAll(() => server?.stop());

  const askForKey = (forwardedFor?: string) =>
    fetch(`${server.url}/v1/keys`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }),
      },
      body: JSON.stringify({ email: "v6@example.org", label: "forwarded" }),
    });

  async function expectRefused(response: Response) {
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await response.json()) as { detail: string };
    expect(Object.keys(body)).toEqual(["detail"]);
    expect(body.detail).toMatch(/already received a key in the last 24 hours/);
  }

  it("gives two IPv6 spellings of one /64 one free key, then 429", async () => {
    expect((await askForKey("2001:db8:1:2::1")).status).toBe(201);
    await expectRefused(await askForKey("2001:0DB8:0001:0002:0000:0000:0000:0002"));
    await expectRefused(await askForKey("203.0.113.9, [2001:db8:1:2:ffff::7]:443"));
  });

  it("counts another /64 as another client", async () => {
    expect((await askForKey("2001:db8:1:3::1")).status).toBe(201);
  });

  it('limits "9.9.9.9, 5.6.7.8:1234" as 5.6.7.8, not 9.9.9.9', async () => {
    expect((await askForKey("5.6.7.8")).status).toBe(201);
    await expectRefused(await askForKey("9.9.9.9, 5.6.7.8:1234"));
    // 9.9.9.9 has had no key, so the refusal above was 5.6.7.8's.
    expect((await askForKey("9.9.9.9")).status).toBe(201);
  });

  it("counts an IPv4-mapped spelling as its IPv4 address", async () => {
    expect((await askForKey("198.51.100.4")).status).toBe(201);
    await expectRefused(await askForKey("::ffff:c633:6404"));
    await expectRefused(await askForKey("[::ffff:198.51.100.4]:80"));
  });

  it("counts an unparseable chosen entry as the proxy, never as a fresh client per string", async () => {
    expect((await askForKey("198.51.100.77, unknown")).status).toBe(201);
    await expectRefused(await askForKey("198.51.100.78, _obfuscated"));
    await expectRefused(await askForKey("garbage-1"));
    // The proxy's own address (the socket, 127.0.0.1) is the bucket those used.
    await expectRefused(await askForKey());
  });
});

describe("a bad IPV6_PREFIX", () => {
  it("stops picks serve at start-up with a message naming the variable and what it takes", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "picks-forwarded-"));
    const run = promisify(execFile)(
      process.execPath,
      [PICKS_BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--public", publicDir],
      { env: { ...process.env, STATE_DIR: stateDir, IPV6_PREFIX: "129" }, timeout: 20_000 },
    );
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "picks: Expected IPV6_PREFIX to be a whole number from 1 to 128 (the IPv6 prefix length counted as one client), got `129`",
      ),
    });
  }, 30_000);
});

describe.each(MODES)("POST /v1/verify and /v1/score/submit count one /64 as one client (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const context = await submissionContext({
      config: { trustProxy: parseTrustProxy("1"), verifyLimit: 1, submitLimit: 1 },
    });
    ({ call, close } = await clientFor(mode, context));
  });
  afterAll(() => close());

  const forwarded = (address: string) => ({ headers: { "x-forwarded-for": address } });
  const message = {
    subject: "Notes from Tuesday's review",
    body: "Hi Priya,\n\nThe notes are attached; the open question is the holdout split.\n\nBest,\nSam",
    recipient: "priya.raman@northwind-labs.com",
    options: { llm_check: false },
  };
  // Nothing scores submissions here (no worker), so the page is never fetched.
  const submission = { ...SUBMISSION, url: "http://127.0.0.1:9/about" };

  it("verify", async () => {
    expect((await call("/v1/verify", postJson(message, forwarded("2001:db8:5:6::1")))).status).toBe(200);
    const again = await call("/v1/verify", postJson(message, forwarded("[2001:DB8:5:6:0:0:0:2]:8443")));
    expect(again.status).toBe(429);
    expect(again.headers.get("ratelimit-policy")).toBe('"verify";q=1;w=3600');
    expect((await call("/v1/verify", postJson(message, forwarded("2001:db8:5:7::1")))).status).toBe(200);
  });

  it("submit", async () => {
    expect((await call("/v1/score/submit", postJson(submission, forwarded("2001:db8:5:6::1")))).status).toBe(
      202,
    );
    const again = await call("/v1/score/submit", postJson(submission, forwarded("2001:db8:5:6:abcd::9")));
    expect(again.status).toBe(429);
    expect(again.headers.get("ratelimit-policy")).toBe('"submit";q=1;w=86400');
    expect(
      (await call("/v1/score/submit", postJson(submission, forwarded("9.9.9.9, 5.6.7.8:1")))).status,
    ).toBe(202);
    expect((await call("/v1/score/submit", postJson(submission, forwarded("5.6.7.8")))).status).toBe(429);
  });
});
