import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Health } from "../../pipeline/domain/api-answers.ts";
import { addDays } from "../../pipeline/domain/calendar.ts";
import {
  type MotoServer,
  motoSkipReason,
  newBucket,
  publishToNewBucket,
  SITE_PREFIX,
  s3Client,
  s3Env,
  startMoto,
} from "../helpers/moto.ts";
import { PICKS_BIN, runPicks } from "../helpers/processes.ts";
import { curateListingArgs, publishSampleDays } from "../helpers/published.ts";
import { type S3Proxy, startS3Proxy } from "../helpers/s3-proxy.ts";
import { publishYear } from "../server/mcp/year-site.ts";
import { waitFor } from "../server/submissions/helpers.ts";
import { type PicksChild, startPicks, stopPicks } from "../server/submissions/picks-process.ts";

// The bucket under faults, from outside: real `picks publish` and `picks serve --snapshots` processes,
// moto's S3 API behind a proxy that refuses, holds or slows chosen PUTs, and a publisher killed with
// -9 in each phase. Whatever happens to a publish, a server started at that moment serves the last
// complete one; a rerun completes within a minute of a kill; every object changed in the bucket is
// refused, alone, with `/health` naming it.

const skip = motoSkipReason();
const PREFIX = SITE_PREFIX;
const BASE_DAY = "2026-11-20";
const NEW_DAY = "2026-11-23";
const OTHER_DAY = "2026-11-24";

const sha256 = (body: Buffer) => createHash("sha256").update(body).digest("hex");
const tempDir = (label: string) => mkdtemp(join(tmpdir(), `picks-faults-${label}-`));

describe.skipIf(skip !== null)("the bucket under faults", () => {
  let moto: MotoServer;
  let direct: S3Client;
  /** The three sample days, and the same folder with a fourth (and, in `other`, a different fourth). */
  let base: string;
  let next: string;
  let other: string;
  const temps: string[] = [];

  const env = (endpoint: string): Record<string, string> => ({
    ...s3Env(endpoint),
    STATE_STORE: "memory",
    SNAPSHOTS_POLL_SECONDS: "0.5",
  });

  async function curated(from: string, date: string): Promise<string> {
    const root = await tempDir("site");
    temps.push(root);
    const dir = join(root, "public");
    await cp(from, dir, { recursive: true });
    const done = await runPicks(curateListingArgs(dir, join(root, "runs"), date));
    expect(done.code, done.stderr).toBe(0);
    return dir;
  }

  beforeAll(async () => {
    moto = await startMoto();
    direct = s3Client(moto.endpoint);
    base = (await publishSampleDays()).publicDir;
    [next, other] = await Promise.all([curated(base, NEW_DAY), curated(base, OTHER_DAY)]);
  }, 120_000);
  afterAll(async () => {
    direct?.destroy();
    await moto?.stop();
    await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** A new bucket holding the base site, published straight to moto. */
  const seeded = () => publishToNewBucket(moto.endpoint, "faults", base, env(moto.endpoint));

  const publish = (url: string, from: string, endpoint: string, extra: string[] = []) =>
    runPicks(["publish", "--to", url, "--from", from, ...extra], { ...process.env, ...env(endpoint) });

  function spawnPublish(url: string, from: string, endpoint: string, extra: string[] = []) {
    const child: ChildProcess = spawn(
      process.execPath,
      [PICKS_BIN, "publish", "--to", url, "--from", from, ...extra],
      {
        env: { ...process.env, ...env(endpoint) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
      (resolve) => child.once("close", (code, signal) => resolve({ code, signal, stderr })),
    );
    return { child, exited };
  }

  async function serve(url: string, endpoint = moto.endpoint): Promise<PicksChild> {
    const publicDir = await tempDir("serve");
    temps.push(publicDir);
    return startPicks(
      ["serve", "--port", "0", "--public", publicDir, "--snapshots", url],
      env(endpoint),
      /listening on http/,
    );
  }

  const health = async (server: PicksChild) => (await (await fetch(`${server.url}/health`)).json()) as Health;
  const latestOf = async (server: PicksChild) =>
    ((await (await fetch(`${server.url}/v1/daily/latest`)).json()) as { date: string }).date;

  /** A server started now: what it serves is a complete publish whose newest day is `newest`. */
  async function expectServes(url: string, newest: string): Promise<Health> {
    const server = await serve(url);
    try {
      expect(await latestOf(server)).toBe(newest);
      for (const path of [
        "/v1/recent",
        "/v1/stats",
        `/v1/daily/${BASE_DAY}`,
        "/feed.xml",
        "/v1/search-index.json",
      ]) {
        expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
      }
      const recent = (await (await fetch(`${server.url}/v1/recent`)).json()) as {
        days: Array<{ date: string }>;
      };
      expect(recent.days[0]?.date).toBe(newest);
      const state = await health(server);
      expect(state.snapshots.refused).toEqual([]);
      expect(state.snapshots.problem).toBeNull();
      expect(state.snapshots.manifest_newest_day).toBe(newest);
      return state;
    } finally {
      await stopPicks([server]);
    }
  }

  /** Reruns the publish until it completes; the seconds it took from `since`. */
  async function rerunUntilDone(url: string, since: number): Promise<number> {
    for (;;) {
      const done = await publish(url, next, moto.endpoint);
      if (done.code === 0) return (Date.now() - since) / 1000;
      expect(done.stderr).toMatch(/another publish to .* is in progress .*its lease runs until/);
      if (Date.now() - since > 70_000) throw new Error(`still refused after 70 s: ${done.stderr}`);
      await sleep(2_000);
    }
  }

  describe("a store that refuses one PUT", () => {
    let proxy: S3Proxy;
    beforeAll(async () => {
      proxy = await startS3Proxy(moto.endpoint);
    });
    afterAll(() => proxy?.close());

    // 500 is retried by the client and the publish completes; the others stop it.
    it.each([
      403, 500, 501, 412,
    ])("%i on feed.xml: a server started then serves the last complete publish, and a rerun completes at once", {
      timeout: 90_000,
    }, async (status) => {
      const url = await seeded();
      let refused = false;
      proxy.reset();
      proxy.onPut((path) => {
        if (refused || !path.endsWith(`/${PREFIX}/feed.xml`)) return undefined;
        refused = true;
        return status;
      });
      const done = await publish(url, next, proxy.endpoint);
      proxy.reset();
      expect(refused).toBe(true);
      expect(done.code, done.stderr).toBe(status === 500 ? 0 : 1);
      const state = await expectServes(url, done.code === 0 ? NEW_DAY : BASE_DAY);
      if (done.code === 1) {
        expect(state.snapshots.publish).toMatchObject({
          state: "failed",
          reason: expect.stringMatching(String(status)),
        });
        const started = Date.now();
        expect((await publish(url, next, proxy.endpoint)).code).toBe(0);
        expect(Date.now() - started).toBeLessThan(15_000);
        await expectServes(url, NEW_DAY);
      } else {
        expect(state.snapshots.publish).toBeNull();
      }
    });

    it("501 to If-Match: found before the first upload, then the warning and plain writes", {
      timeout: 60_000,
    }, async () => {
      const url = await seeded();
      proxy.reset();
      proxy.refusePutsWith("if-match", 501);
      const done = await publish(url, next, proxy.endpoint);
      const puts = proxy.puts().map((path) => path.split(`/${PREFIX}/`)[1]);
      proxy.reset();
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toContain(
        "does not support conditional writes: two publishers at once are not detected",
      );
      // The lease, its refused If-Match renewal and its plain rewrite: all before any object.
      expect(puts.slice(0, 3)).toEqual([
        "v1/publish-lease.json",
        "v1/publish-lease.json",
        "v1/publish-lease.json",
      ]);
      expect(puts.findIndex((key) => key?.startsWith("v1/objects/"))).toBeGreaterThan(2);
      await expectServes(url, NEW_DAY);
    });

    it("a server started in the middle of a healthy publish serves the last complete one, then the new one", {
      timeout: 90_000,
    }, async () => {
      const url = await seeded();
      proxy.reset();
      let server: Promise<PicksChild> | undefined;
      proxy.onPut((path) => {
        if (!server && path.endsWith(`/${PREFIX}/feed.xml`)) {
          // From the first derived file on, the store is slow: the server starts and answers meanwhile.
          proxy.delayPuts(3_000);
          server = serve(url);
        }
        return undefined;
      });
      const publishing = publish(url, next, proxy.endpoint);
      const started = await waitFor(async () => server ?? null, 30_000, "a derived file's upload");
      const running = await started;
      try {
        const during = await health(running);
        expect(await latestOf(running)).toBe(BASE_DAY);
        expect(during.snapshots.refused).toEqual([]);
        expect((await publishing).code).toBe(0);
        await waitFor(
          async () => ((await latestOf(running)) === NEW_DAY ? true : null),
          10_000,
          "the new day",
        );
      } finally {
        proxy.reset();
        await stopPicks([running]);
      }
    });
  });

  describe("kill -9 in each phase", () => {
    const PHASES: ReadonlyArray<[phase: string, test: (key: string) => boolean]> = [
      ["objects", (key) => key.startsWith("v1/objects/")],
      ["days", (key) => key === `v1/daily/${NEW_DAY}.json`],
      ["derived", (key) => key === "v1/recent.json"],
      ["pointer", (key) => key === "v1/daily/latest.json"],
      ["manifest", (key) => key === "v1/manifest.json"],
    ];

    // The five run side by side, each with its own bucket and proxy: each waits out a lease.
    it("a server started after the kill serves the last complete publish, and a rerun completes within a minute", {
      timeout: 180_000,
    }, async () => {
      const outcomes = await Promise.all(
        PHASES.map(async ([phase, matches]) => {
          const url = await seeded();
          const proxy = await startS3Proxy(moto.endpoint);
          try {
            let killedAt = 0;
            const publisher = spawnPublish(url, next, proxy.endpoint);
            proxy.onPut((path) => {
              const key = path.split(`/${PREFIX}/`)[1] ?? "";
              if (killedAt > 0) return "hold";
              if (!matches(key)) return undefined;
              killedAt = Date.now();
              publisher.child.kill("SIGKILL");
              return "hold";
            });
            const ended = await publisher.exited;
            expect(ended.signal, `${phase}: ${ended.stderr}`).toBe("SIGKILL");
            expect(killedAt, phase).toBeGreaterThan(0);
            const state = await expectServes(url, BASE_DAY);
            expect(state.snapshots.publish?.state, phase).toMatch(/under_way|interrupted/);
            const seconds = await rerunUntilDone(url, killedAt);
            await expectServes(url, NEW_DAY);
            return { phase, seconds };
          } finally {
            await proxy.close();
          }
        }),
      );
      for (const { phase, seconds } of outcomes) expect(seconds, phase).toBeLessThan(60);
    });
  });

  it("a publisher whose lease is broken stops writing; the bucket is the other's", {
    timeout: 90_000,
  }, async () => {
    const url = await seeded();
    const slow = await startS3Proxy(moto.endpoint);
    try {
      // A's uploads take seconds each; B breaks its lease at A's first object and completes.
      slow.delayPuts(4_000);
      let second: ReturnType<typeof publish> | undefined;
      slow.onPut((path) => {
        if (!second && path.includes("/v1/objects/"))
          second = publish(url, other, moto.endpoint, ["--break-lease"]);
        return undefined;
      });
      const first = spawnPublish(url, next, slow.endpoint);
      const firstEnded = await first.exited;
      const breaker = await (second as ReturnType<typeof publish>);
      expect(breaker.code, breaker.stderr).toBe(0);
      expect(breaker.stderr).toMatch(
        /breaking the publish lease of [0-9a-f]{16}, on host .+, pid \d+, started /,
      );
      expect(firstEnded.code, firstEnded.stderr).toBe(1);
      expect(firstEnded.stderr).toMatch(/stopped writing: its lease was taken over by another publisher/);
      const [bucket] = url.slice("s3://".length).split("/") as [string];
      const manifest = JSON.parse(await text(bucket, "v1/manifest.json")) as {
        newest_day: string;
        files: Record<string, { sha256: string }>;
      };
      expect(manifest.newest_day).toBe(OTHER_DAY);
      // Every path is B's: A wrote nothing but objects (named by their own bytes) before it stopped.
      for (const [key, entry] of Object.entries(manifest.files)) {
        expect(sha256(Buffer.from(await text(bucket, key))), key).toBe(entry.sha256);
        expect(entry.sha256, key).toBe(sha256(await readFile(join(other, key))));
      }
      await expectServes(url, OTHER_DAY);
    } finally {
      await slow.close();
    }
  });

  it("a manifest naming 3,000 absent days: a bounded, concurrent load, and SIGTERM honoured at once", {
    timeout: 90_000,
  }, async () => {
    const url = await seeded();
    const [bucket] = url.slice("s3://".length).split("/") as [string];
    const manifest = JSON.parse(await text(bucket, "v1/manifest.json")) as { files: Record<string, unknown> };
    for (let n = 0; n < 3_000; n++) {
      manifest.files[`v1/daily/${addDays("2010-01-01", n)}.json`] = {
        sha256: sha256(Buffer.from(String(n))),
        size: 1000,
        modified: "2026-11-20T06:00:00.000Z",
      };
    }
    await direct.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${PREFIX}/v1/manifest.json`,
        Body: JSON.stringify(manifest),
      }),
    );
    const proxy = await startS3Proxy(moto.endpoint);
    try {
      const started = Date.now();
      const server = await serve(url, proxy.endpoint);
      try {
        expect(await latestOf(server)).toBe(BASE_DAY);
        const loaded = await waitFor(
          async () => {
            const state = await health(server);
            return state.skipped_days.length === 3_000 ? state : null;
          },
          60_000,
          "the history's load",
        );
        const seconds = (Date.now() - started) / 1000;
        expect(seconds).toBeLessThan(60);
        expect(loaded.skipped_days[0]).toMatchObject({ reason: "unreadable (gone)" });
        // Ten named, then a count: not 3,000 lines.
        expect(server.stderr.filter((line) => line.includes("not serving")).length).toBeLessThanOrEqual(11);
      } finally {
        await stopPicks([server]);
      }
      // Stopped in the middle of that load: within the documented 10 s.
      const second = await serve(url, proxy.endpoint);
      await sleep(300);
      const signalled = Date.now();
      second.child.kill("SIGTERM");
      await second.exited;
      expect(Date.now() - signalled).toBeLessThan(10_000);
    } finally {
      await proxy.close();
    }
  });

  async function text(bucket: string, key: string): Promise<string> {
    const answer = await direct.send(new GetObjectCommand({ Bucket: bucket, Key: `${PREFIX}/${key}` }));
    return (await answer.Body?.transformToString()) ?? "";
  }

  describe("objects changed in the bucket", () => {
    const RECENT = "2026-11-20";
    // The forty days run from 2026-10-12; the newest 31 from 2026-10-21.
    const OLD_READ = "2026-10-13";
    const OLD_UNREAD = "2026-10-14";
    const TAMPERED = [
      "v1/daily/2026-11-20.json",
      `v1/daily/${OLD_READ}.json`,
      `v1/daily/${OLD_UNREAD}.json`,
      "v1/picks-index.jsonl",
      "feed.xml",
      "v1/search-index.json",
    ];
    let url: string;
    let bucket: string;
    let site: string;
    let key: string;

    async function overwrite(path: string, body: string) {
      const manifest = JSON.parse(await text(bucket, "v1/manifest.json")) as {
        files: Record<string, { sha256: string }>;
      };
      const hash = manifest.files[path]?.sha256;
      await direct.send(
        new PutObjectCommand({ Bucket: bucket, Key: `${PREFIX}/v1/objects/${hash}`, Body: body }),
      );
    }

    beforeAll(async () => {
      // Forty days: nine of them older than the newest 31 that a server holds.
      const root = await tempDir("forty");
      temps.push(root);
      site = join(root, "public");
      await publishYear({ publicDir: site, days: 40, lastDate: RECENT });
      const sample = (await publishSampleDays()).publicDir;
      await cp(join(sample, "feed.xml"), join(site, "feed.xml"));
      await cp(join(sample, "v1", "search-index.json"), join(site, "v1", "search-index.json"));
      bucket = await newBucket(moto.endpoint, "tampered");
      url = `s3://${bucket}/${PREFIX}`;
      const done = await publish(url, site, moto.endpoint);
      expect(done.code, done.stderr).toBe(0);
    }, 120_000);

    it("are refused alone, each keeping its last good copy, and /health names every one", {
      timeout: 90_000,
    }, async () => {
      const running = await serve(url);
      try {
        const issued = await fetch(`${running.url}/v1/keys`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "ada@example.org", label: "faults" }),
        });
        key = ((await issued.json()) as { key: string }).key;
        const goodOld = await (await fetch(`${running.url}/v1/daily/${OLD_READ}`)).text();
        const goodTitle = (
          (await (
            await fetch(`${running.url}/v1/papers?days=3650&limit=1`, { headers: { "x-api-key": key } })
          ).json()) as { papers: Array<{ title: string }> }
        ).papers[0]?.title;
        expect(goodTitle).toBeDefined();

        const index = (await text(bucket, "v1/picks-index.jsonl"))
          .replaceAll(`"title":"`, `"title":"TAMPERED BY SOMEONE ELSE `)
          .replaceAll("arxiv.org/abs", "evil.example/abs");
        await overwrite("v1/picks-index.jsonl", index);
        for (const path of TAMPERED.filter((path) => path !== "v1/picks-index.jsonl")) {
          await overwrite(path, `TAMPERED BY SOMEONE ELSE ${path}`);
        }

        // A server started now: every changed object refused, everything else served.
        const fresh = await serve(url);
        try {
          // The history behind the newest days loads in the background: every day is read in full
          // once the picks index is refused.
          const state = await waitFor(
            async () => {
              const now = await health(fresh);
              return now.skipped_days.length >= 3 ? now : null;
            },
            20_000,
            "the history's load",
          );
          expect(state.status).toBe("degraded");
          expect(state.skipped_days.map((day) => day.file).sort()).toEqual(
            [OLD_READ, OLD_UNREAD, RECENT].map((date) => `${date}.json`).sort(),
          );
          const refused = state.snapshots.refused.map((entry) => entry.file);
          for (const path of TAMPERED) expect(refused, path).toContain(path);
          for (const path of [
            "/feed.xml",
            "/v1/search-index.json",
            `/v1/daily/${RECENT}`,
            `/v1/daily/${OLD_UNREAD}`,
          ]) {
            const answer = await fetch(`${fresh.url}${path}`);
            expect(answer.status, path).not.toBe(200);
            expect(await answer.text(), path).not.toContain("TAMPERED");
          }
          for (const path of ["/v1/recent", "/v1/stats", "/v1/daily/2026-11-19", "/v1/daily/2026-10-15"]) {
            expect((await fetch(`${fresh.url}${path}`)).status, path).toBe(200);
          }
          const freshKey = (
            (await (
              await fetch(`${fresh.url}/v1/keys`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ email: "ada@example.org", label: "faults" }),
              })
            ).json()) as { key: string }
          ).key;
          const papers = await (
            await fetch(`${fresh.url}/v1/papers?days=3650&limit=100`, { headers: { "x-api-key": freshKey } })
          ).text();
          expect(papers).not.toContain("TAMPERED");
          expect(papers).not.toContain("evil.example");
        } finally {
          await stopPicks([fresh]);
        }

        // The running server: a publish makes it reload; what it held stays as it was.
        await cp(new URL("../../public/index.html", import.meta.url).pathname, join(site, "index.html"));
        expect((await publish(url, site, moto.endpoint)).code).toBe(0);
        await waitFor(
          async () => ((await health(running)).snapshots.refused.length > 0 ? true : null),
          10_000,
          "the reload",
        );
        expect((await fetch(`${running.url}/`)).status).toBe(200);
        expect(await (await fetch(`${running.url}/v1/daily/${OLD_READ}`)).text()).toBe(goodOld);
        const unread = await fetch(`${running.url}/v1/daily/${OLD_UNREAD}`);
        expect(unread.status).toBe(503);
        for (const path of ["/feed.xml", "/v1/search-index.json", `/v1/daily/${RECENT}`]) {
          const answer = await fetch(`${running.url}${path}`);
          expect(answer.status, path).toBe(200);
          expect(await answer.text(), path).not.toContain("TAMPERED");
        }
        const papers = await (
          await fetch(`${running.url}/v1/papers?days=3650&limit=100`, { headers: { "x-api-key": key } })
        ).text();
        expect(papers).toContain(goodTitle as string);
        expect(papers).not.toContain("TAMPERED");
        const refused = (await health(running)).snapshots.refused.map((entry) => entry.file);
        expect(refused).toContain("v1/picks-index.jsonl");
        expect(refused).toContain(`v1/daily/${OLD_UNREAD}.json`);
      } finally {
        await stopPicks([running]);
      }
    });
  });
});
