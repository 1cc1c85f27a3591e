import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PutBucketPolicyCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/local-process.ts";
import { type MotoServer, motoSkipReason, newBucket, s3Client, s3Env, startMoto } from "../helpers/moto.ts";
import { runPicks } from "../helpers/processes.ts";
import { curateListingArgs, publishSampleDays } from "../helpers/published.ts";

// docs/cdn/nginx.conf as operators get it, placeholders filled in, run by Debian's nginx in front of
// moto's real S3 API holding a bucket `picks publish` wrote: the rewrites, the caching by each object's
// own Cache-Control, and what a reader never sees (the store's headers, its XML errors). With
// libfaketime, nginx's clock is stepped past latest's max-age to show a newly published day appear.

const NGINX = "/usr/sbin/nginx";
const CONF = new URL("../../docs/cdn/nginx.conf", import.meta.url);
const PUBLIC = new URL("../../public/", import.meta.url);
const NEW_DAY = "2026-11-23";

const skip =
  motoSkipReason() ??
  (existsSync(NGINX) ? null : `${NGINX} is missing: CDN test skipped (apt-get install -y nginx to run it)`);

/** libfaketime's preload library from Debian's `faketime` package, or null. */
function findLibfaketime(): string | null {
  const dirs = existsSync("/usr/lib") ? readdirSync("/usr/lib").filter((name) => name.endsWith("-gnu")) : [];
  const candidates = ["/usr/lib", ...dirs.map((name) => join("/usr/lib", name))].map((dir) =>
    join(dir, "faketime", "libfaketime.so.1"),
  );
  return candidates.find((path) => existsSync(path)) ?? null;
}
const LIBFAKETIME = findLibfaketime();

interface Nginx {
  url: string;
  cacheDir: string;
  /** nginx's error log so far, for failure messages. */
  errors(): Promise<string>;
  /** Moves nginx's clock `seconds` ahead of the real one (libfaketime only). */
  setClock(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

/** The documented file with only its placeholders replaced; a placeholder left over fails here. */
async function renderConf(values: Record<string, string>): Promise<string> {
  let text = await readFile(CONF, "utf8");
  for (const [name, value] of Object.entries(values)) text = text.replaceAll(name, value);
  const left = /__[A-Z_]+__/.exec(text);
  if (left) throw new Error(`docs/cdn/nginx.conf has a placeholder the test does not fill: ${left[0]}`);
  return text;
}

/**
 * nginx in the foreground on a free loopback port, everything it writes in a temporary folder of its
 * own. As root its workers run as `nobody`: the master creates the cache and temporary folders for
 * them, and the folder (directly under the system's temporary folder) only has to be traversable.
 */
async function startNginx(endpoint: string, bucketPath: string): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), "picks-nginx-"));
  await chmod(dir, 0o755);
  const clock = join(dir, "clock");
  await writeFile(clock, "+0\n", { mode: 0o644 });
  // nginx clears its workers' environment but for the variables named by `env`.
  const faked = LIBFAKETIME
    ? "env FAKETIME_TIMESTAMP_FILE;\nenv FAKETIME_NO_CACHE;\nenv FAKETIME_DONT_FAKE_MONOTONIC;\n"
    : "";
  const env = LIBFAKETIME
    ? {
        ...process.env,
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: clock,
        // The file is read at every clock call, so a step takes effect at once; timers keep real time.
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      }
    : process.env;
  const cacheDir = join(dir, "cache");
  const errorLog = join(dir, "error.log");
  let lastError = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const site = await renderConf({
      __LISTEN__: `127.0.0.1:${port}`,
      __BUCKET_ENDPOINT__: endpoint,
      __BUCKET_PATH__: bucketPath,
      __CACHE_DIR__: cacheDir,
    });
    await writeFile(join(dir, "site.conf"), site);
    const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
      .map((kind) => `  ${kind}_temp_path "${join(dir, kind)}";`)
      .join("\n");
    await writeFile(
      join(dir, "nginx.conf"),
      `${faked}pid "${join(dir, "nginx.pid")}";\nworker_processes 1;\nevents { worker_connections 64; }\n` +
        `http {\n  access_log off;\n${temp}\n  include "${join(dir, "site.conf")}";\n}\n`,
    );
    const child = spawn(
      NGINX,
      ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", errorLog, "-g", "daemon off;"],
      { env, stdio: "ignore", detached: true },
    );
    const url = `http://127.0.0.1:${port}`;
    if (await answers(child, url)) {
      return {
        url,
        cacheDir,
        errors: () => readFile(errorLog, "utf8").catch(() => ""),
        setClock: (seconds) => writeFile(clock, `+${seconds}\n`),
        stop: async () => {
          await stopNginx(child);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    await stopNginx(child);
    lastError = await readFile(errorLog, "utf8").catch(() => "");
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`Expected nginx to start on a free loopback port:\n${lastError}`);
}

/** True once this nginx answers on `url` (not another process that took the port first). */
async function answers(child: ChildProcess, url: string): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const answer = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(1_000) });
      await answer.arrayBuffer();
      if (answer.headers.get("server") === "nginx" && child.exitCode === null) return true;
    } catch {}
    await sleep(50);
  }
  return false;
}

async function stopNginx(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  // The master stops its workers on SIGTERM; only if it hangs is the whole group (its own) killed.
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {}
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * What nginx recorded for a cached key: the header of its cache file (format version 5, nginx
 * 1.7.x onwards) holds, on a 64-bit machine, `valid_sec` at byte 8 and `date` (when stored) at byte 40.
 */
async function cacheRecord(cacheDir: string, key: string): Promise<{ version: number; seconds: number }> {
  for (const entry of await readdir(cacheDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = await readFile(join(entry.parentPath, entry.name));
    if (!file.includes(`\nKEY: ${key}\n`)) continue;
    const validSec = file.readBigInt64LE(8);
    const date = file.readBigInt64LE(40);
    return { version: Number(file.readBigUInt64LE(0)), seconds: Number(validSec - date) };
  }
  throw new Error(`nginx has no cache file for ${key}`);
}

const dayOf = async (answer: Response) => ((await answer.json()) as { date: string }).date;

describe.skipIf(skip)(
  skip ? `nginx as the CDN: ${skip}` : "nginx as the CDN, from docs/cdn/nginx.conf",
  () => {
    let moto: MotoServer;
    let nginx: Nginx;
    let root: string;
    let bucket: string;
    let env: NodeJS.ProcessEnv;
    let publicDir: string;
    const get = (path: string, init?: RequestInit) => fetch(`${nginx.url}${path}`, init);
    const keyOf = (file: string) => `/${bucket}/site/${file}`;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "picks-cdn-"));
      moto = await startMoto();
      bucket = await newBucket(moto.endpoint, "picks-cdn");
      // nginx does not sign: the published prefix is readable by anyone, as the conf's header says.
      const client = s3Client(moto.endpoint);
      const Statement = [
        {
          Effect: "Allow",
          Principal: "*",
          Action: "s3:GetObject",
          Resource: `arn:aws:s3:::${bucket}/site/*`,
        },
      ];
      await client.send(
        new PutBucketPolicyCommand({
          Bucket: bucket,
          Policy: JSON.stringify({ Version: "2012-10-17", Statement }),
        }),
      );
      client.destroy();

      const site = await publishSampleDays();
      publicDir = site.publicDir;
      await cp(new URL("index.html", PUBLIC), join(publicDir, "index.html"));
      await cp(new URL("assets", PUBLIC), join(publicDir, "assets"), { recursive: true });
      // STATE_DIR away from the checkout's, so the curate below queues no event in it; no Redis hint,
      // and no PUBLISH_URL from the environment: the curate writes the folder only.
      env = {
        ...process.env,
        ...s3Env(moto.endpoint),
        STATE_DIR: join(root, "state"),
        REDIS_URL: "",
        PUBLISH_URL: "",
      };
      const published = await runPicks(["publish", "--to", `s3://${bucket}/site`, "--from", publicDir], env);
      expect(published.code, published.stderr).toBe(0);

      const [started, curated] = await Promise.all([
        startNginx(moto.endpoint, `/${bucket}/site`),
        // The next day in the working copy only: the bucket learns of it in the last tests.
        runPicks(curateListingArgs(publicDir, site.runsDir, NEW_DAY), env),
      ]);
      nginx = started;
      expect(curated.code, curated.stderr).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await nginx?.stop();
      await moto?.stop();
      for (const dir of [root, publicDir && dirname(publicDir)]) {
        if (dir) await rm(dir, { recursive: true, force: true });
      }
    });

    it("serves a dated day at its API path with the object's type and max-age: MISS, then HIT", async () => {
      const first = await get("/v1/daily/2026-11-20");
      expect(first.status, await nginx.errors()).toBe(200);
      expect(first.headers.get("content-type")).toBe("application/json");
      expect(first.headers.get("cache-control")).toBe("public, max-age=3600");
      expect(first.headers.get("x-cache-status")).toBe("MISS");
      expect(first.headers.get("access-control-allow-origin")).toBe("*");
      expect(first.headers.get("x-content-type-options")).toBe("nosniff");
      expect([...first.headers.keys()].filter((name) => /^x-amz|^x-goog/i.test(name))).toEqual([]);
      expect(await dayOf(first)).toBe("2026-11-20");

      const second = await get("/v1/daily/2026-11-20");
      expect(second.headers.get("x-cache-status")).toBe("HIT");
      expect(await dayOf(second)).toBe("2026-11-20");
      // The `.json` file and its API path are one object, cached once.
      expect((await get("/v1/daily/2026-11-20.json")).headers.get("x-cache-status")).toBe("HIT");
      expect(await cacheRecord(nginx.cacheDir, keyOf("v1/daily/2026-11-20.json"))).toEqual({
        version: 5,
        seconds: 3600,
      });
    });

    it("serves latest, recent, the page and its assets; the page, `no-cache`, is never kept", async () => {
      const latest = await get("/v1/daily/latest");
      expect(latest.status).toBe(200);
      expect(latest.headers.get("cache-control")).toBe("public, max-age=300");
      expect(await dayOf(latest)).toBe("2026-11-20");
      const recent = await get("/v1/recent");
      expect(recent.status).toBe(200);
      expect(recent.headers.get("content-type")).toBe("application/json");
      expect(((await recent.json()) as { days: unknown[] }).days.length).toBeGreaterThan(0);

      for (const round of ["MISS", "MISS"]) {
        const page = await get("/");
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(page.headers.get("cache-control")).toBe("no-cache");
        expect(page.headers.get("x-cache-status")).toBe(round);
        expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
        expect(page.headers.get("access-control-allow-origin")).toBeNull();
        expect(await page.text()).toContain("<!doctype html>");
      }
      const script = await get("/assets/app.js");
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await script.text()).toBe(await readFile(new URL("assets/app.js", PUBLIC), "utf8"));
    });

    it("answers a plain 404 where the bucket answers XML, drops query strings and refuses writes", async () => {
      const direct = await fetch(`${moto.endpoint}/${bucket}/site/v1/daily/2026-01-01.json`);
      expect(direct.status).toBe(404);
      expect(await direct.text()).toContain("<Code>NoSuchKey</Code>");

      for (const path of [
        "/v1/daily/2026-01-01",
        "/v1/nope",
        "/v1/manifest.json",
        "/v1/publish-lease.json",
      ]) {
        const answer = await get(path);
        expect(answer.status, path).toBe(404);
        expect(answer.headers.get("content-type"), path).toBe("text/plain");
        const body = await answer.text();
        expect(body, path).toBe("Not Found\n");
        expect(
          [...answer.headers.keys()].filter((name) => /^x-amz/i.test(name)),
          path,
        ).toEqual([]);
      }
      // `?list-type=2` would list the bucket and `?acl` show its owner: neither reaches the store.
      for (const query of ["?list-type=2", "?acl"]) {
        const answer = await get(`/v1/recent${query}`);
        expect(answer.status).toBe(200);
        expect(await answer.text()).not.toContain("<?xml");
      }
      const post = await get("/v1/recent", { method: "POST", body: "{}" });
      expect(post.status).toBe(405);
      await post.arrayBuffer();
    });

    it("keeps serving its cached latest after a publish, as long as latest's max-age allows", async () => {
      expect(await dayOf(await get("/v1/daily/latest"))).toBe("2026-11-20");
      expect(await cacheRecord(nginx.cacheDir, keyOf("v1/daily/latest.json"))).toEqual({
        version: 5,
        seconds: 300,
      });

      const published = await runPicks(["publish", "--to", `s3://${bucket}/site`, "--from", publicDir], env);
      expect(published.code, published.stderr).toBe(0);
      const origin = await fetch(`${moto.endpoint}/${bucket}/site/v1/daily/latest.json`);
      expect(await dayOf(origin)).toBe(NEW_DAY);

      const cached = await get("/v1/daily/latest");
      expect(cached.headers.get("x-cache-status")).toBe("HIT");
      expect(await dayOf(cached)).toBe("2026-11-20");
      // The new day itself was never asked for: it is there at once.
      const day = await get(`/v1/daily/${NEW_DAY}`);
      expect(day.headers.get("x-cache-status")).toBe("MISS");
      expect(await dayOf(day)).toBe(NEW_DAY);
    });

    it("shows the new day at latest once its 300 s have passed on nginx's clock (libfaketime)", async (ctx) => {
      ctx.skip(
        LIBFAKETIME === null,
        "libfaketime is missing: nginx's clock cannot be moved (apt-get install -y faketime to run it)",
      );
      // The cached latest was stored within the last few seconds: 240 s on, it is still fresh.
      await nginx.setClock(240);
      const fresh = await get("/v1/daily/latest");
      const shown = Date.parse(fresh.headers.get("date") ?? "");
      expect(shown - Date.now()).toBeGreaterThan(230_000);
      expect(fresh.headers.get("x-cache-status")).toBe("HIT");
      expect(await dayOf(fresh)).toBe("2026-11-20");

      await nginx.setClock(301);
      const expired = await get("/v1/daily/latest");
      expect(expired.headers.get("x-cache-status")).toBe("EXPIRED");
      expect(await dayOf(expired)).toBe(NEW_DAY);
      const again = await get("/v1/daily/latest");
      expect(again.headers.get("x-cache-status")).toBe("HIT");
      expect(await dayOf(again)).toBe(NEW_DAY);
      // A dated day's hour has not run out: still the copy nginx holds.
      expect((await get("/v1/daily/2026-11-20")).headers.get("x-cache-status")).toBe("HIT");
    });

    it("keeps serving what it holds when the bucket is down, and a plain 502 for the rest", async () => {
      await moto.stop();
      const kept = await get("/v1/daily/2026-11-20");
      expect(kept.status).toBe(200);
      expect(await dayOf(kept)).toBe("2026-11-20");
      const missing = await get("/feed.xml");
      expect(missing.status).toBe(502);
      expect(await missing.text()).toBe("Bad Gateway\n");
    });
  },
);
