import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import type { PublishStatus, RefusedFile, SnapshotOriginStatus } from "../../pipeline/domain/api-answers.ts";
import type { Manifest } from "../../pipeline/domain/manifest.ts";
import { LEASE_KEY } from "../../pipeline/domain/published-files.ts";
import { IntegrityError, type OriginDriver } from "../../pipeline/origin/origin.ts";
import { readManifest, readNamed, storedKeyOf } from "../../pipeline/origin/origin-utils.ts";
import { subscribePublishHints } from "../../pipeline/origin/publish-hint.ts";
import { parseLease } from "../../pipeline/origin/publish-lease.ts";
import type { SnapshotSource, SourceEntry } from "./snapshot-source.ts";

export interface BucketSourceOptions {
  origin: OriginDriver;
  /** `s3://bucket/prefix`, as `/health` shows it. */
  url: string;
  /** The store's endpoint, left out of what `/health` shows: it can name an account. */
  endpoint?: string;
  pollSeconds: number;
  /** With Redis, a publisher's hint makes every server poll at once. */
  redisUrl?: string;
  now?: () => number;
  log: (message: string) => void;
}

/**
 * The published files of a bucket, as its manifest names them, read from the objects named by their
 * hash (a version-1 bucket: from their paths). Every byte read is checked against the manifest when it
 * is read, the picks index as it streams: a file that does not match is refused, `/health` names it,
 * and the cache keeps its last good copy. The manifest is polled with If-None-Match (a 304 costs no
 * body) every `pollSeconds`, and at once on a publish hint; only a new, valid manifest triggers a
 * reload. A poll that fails or finds a corrupt manifest keeps the last good set, and `/health` (and the
 * log, once per change) says why; a reload that fails is tried again at the next poll. The publish
 * lease is read at each poll too, so `/health` says when a publish is under way or broke.
 */
export function createBucketSource(options: BucketSourceOptions): SnapshotSource & { poll(): Promise<void> } {
  const { origin } = options;
  const now = options.now ?? Date.now;
  let current: { manifest: Manifest; etag: string } | null = null;
  let lastGoodMs: number | null = null;
  let problem: string | null = null;
  let logged: string | null = null;
  let polling: Promise<void> | null = null;
  let lease: { etag: string; status: PublishStatus | null } = { etag: "", status: null };
  const refused = new Map<string, RefusedFile & { sha256: string }>();
  const listeners = new Set<() => Promise<void>>();
  const stops = new Set<() => void>();

  const hidden = (why: string) => (options.endpoint ? why.replaceAll(options.endpoint, "the endpoint") : why);
  const setProblem = (why: string | null) => {
    problem = why === null ? null : hidden(why);
    // Logged once per change of state, not at every poll of a store that stays down.
    if (problem !== logged) {
      if (problem !== null) options.log(`snapshots: ${problem}; serving the last good set`);
      else if (logged !== null) options.log(`snapshots: ${options.url} is read again`);
      logged = problem;
    }
  };
  const refuse = (key: string, sha256: string, error: unknown) => {
    if (!(error instanceof IntegrityError)) return;
    if (refused.get(key)?.sha256 !== sha256) options.log(`snapshots: refusing ${key}: ${error.message}`);
    refused.set(key, { file: key, reason: hidden(error.message), sha256 });
  };

  const changed = async () => {
    try {
      for (const listener of listeners) await listener();
    } catch (error) {
      // Forget the tag, not the manifest: the next poll reads it again and the reload is retried.
      if (current) current = { ...current, etag: "" };
      setProblem(`loading the manifest's files failed: ${(error as Error).message}`);
    }
  };

  /** What the publish lease says: a publish under way, or one that failed or was killed. */
  const readLease = async () => {
    const answer = await origin
      .readIfChanged(LEASE_KEY, lease.etag || undefined, 64 * 1024)
      .catch(() => "unchanged" as const);
    if (answer === "unchanged") return;
    if (answer === undefined) {
      lease = { etag: "", status: null };
      return;
    }
    const record = parseLease(answer.body);
    let status: PublishStatus | null = null;
    if (record?.failed) {
      status = { state: "failed", since: record.started_at ?? null, reason: hidden(record.failed.reason) };
    } else if (record) {
      const live = Date.parse(record.expires_at) > now();
      status = { state: live ? "under_way" : "interrupted", since: record.started_at ?? null, reason: null };
    }
    lease = { etag: answer.etag, status };
  };

  /** Throws only when there never was a good manifest (a server's start). */
  const fetchManifest = async (): Promise<void> => {
    let taken = false;
    try {
      const answer = await readManifest(origin, current?.etag || undefined);
      if (answer !== "unchanged" && answer !== null) {
        current = answer;
        taken = true;
        // A refusal of bytes the new manifest no longer names is over.
        for (const [key, entry] of refused) {
          if (answer.manifest.files[key]?.sha256 !== entry.sha256) refused.delete(key);
        }
      }
      // Unchanged, or nothing published yet (an empty set until the first publish).
      lastGoodMs = now();
      setProblem(null);
    } catch (error) {
      setProblem((error as Error).message.replace(origin.label, options.url));
      if (lastGoodMs === null) throw error;
      return;
    }
    // A refused file is tried again at each poll until it matches (or the manifest moves on). The
    // lease is read after the reload: a new day is not kept waiting for it.
    if (taken || refused.size > 0) await changed();
    await readLease();
  };
  const poll = (): Promise<void> => {
    // One poll at a time: a hint during a poll joins it, and its change is loaded once.
    polling ??= fetchManifest().finally(() => {
      polling = null;
    });
    return polling;
  };

  return {
    async listing() {
      if (lastGoodMs === null) await poll();
      const files = new Map<string, SourceEntry>();
      for (const [key, entry] of Object.entries(current?.manifest.files ?? {})) {
        files.set(key, {
          key,
          size: entry.size,
          modifiedMs: Date.parse(entry.modified),
          version: entry.sha256,
          sha256: entry.sha256,
        });
      }
      return files;
    },
    async read(key) {
      const manifest = current?.manifest;
      const entry = manifest?.files[key];
      if (!manifest || !entry) return undefined;
      try {
        const body = await readNamed(origin, manifest, key, entry);
        if (body) refused.delete(key);
        return body;
      } catch (error) {
        refuse(key, entry.sha256, error);
        throw error;
      }
    },
    async stream(key) {
      const manifest = current?.manifest;
      const entry = manifest?.files[key];
      if (!manifest || !entry) return undefined;
      const stream = await origin.readStream(storedKeyOf(manifest, key, entry));
      if (!stream) return undefined;
      // Checked as it flows: no more than the manifest's size, and the hash at the end. A reader sees
      // the error before its last line counts, and discards what it read.
      const hash = createHash("sha256");
      let size = 0;
      const fail = (why: string) => {
        const error = new IntegrityError(`${key} ${why}`);
        refuse(key, entry.sha256, error);
        return error;
      };
      const checked = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.byteLength;
          if (size > entry.size)
            return done(fail(`is larger than the ${entry.size} bytes the manifest gives`));
          hash.update(chunk);
          done(null, chunk);
        },
        flush(done) {
          if (hash.digest("hex") !== entry.sha256 || size !== entry.size) {
            return done(fail("does not match its hash in the manifest"));
          }
          refused.delete(key);
          done();
        },
      });
      stream.on("error", (error) => checked.destroy(error));
      checked.on("close", () => stream.destroy());
      return stream.pipe(checked);
    },
    watch(onChange) {
      listeners.add(onChange);
      const check = () =>
        // Logged by setProblem, once per change of state.
        void poll().catch(() => {});
      const timer = setInterval(check, options.pollSeconds * 1000);
      timer.unref();
      const subscribed = options.redisUrl
        ? subscribePublishHints(options.redisUrl, check, options.log).catch((error) => {
            options.log(`snapshots: publish hints unavailable, polling only: ${(error as Error).message}`);
            return () => {};
          })
        : Promise.resolve(() => {});
      const stop = () => {
        clearInterval(timer);
        listeners.delete(onChange);
        void subscribed.then((unsubscribe) => unsubscribe());
        stops.delete(stop);
      };
      stops.add(stop);
      return stop;
    },
    poll,
    status(): SnapshotOriginStatus {
      return {
        kind: "bucket",
        origin: options.url,
        last_poll_at: lastGoodMs === null ? null : new Date(lastGoodMs).toISOString(),
        manifest_newest_day: current?.manifest.newest_day ?? null,
        stale_seconds:
          problem !== null && lastGoodMs !== null ? Math.round((now() - lastGoodMs) / 1000) : null,
        problem,
        refused: [...refused.values()].map(({ file, reason }) => ({ file, reason })),
        publish: lease.status,
      };
    },
    close() {
      for (const stop of [...stops]) stop();
      origin.close();
    },
  };
}
