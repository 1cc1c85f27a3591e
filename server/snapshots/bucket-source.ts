import type { SnapshotOriginStatus } from "../../pipeline/domain/api-answers.ts";
import {
  MANIFEST_KEY,
  MAX_MANIFEST_BYTES,
  type Manifest,
  parseManifest,
} from "../../pipeline/domain/manifest.ts";
import type { SnapshotOrigin } from "../../pipeline/origin/origin.ts";
import { subscribePublishHints } from "../../pipeline/origin/publish-hint.ts";
import type { SnapshotSource, SourceEntry } from "./snapshot-source.ts";

export interface BucketSourceOptions {
  origin: SnapshotOrigin;
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
 * The published files of a bucket, as its manifest names them. The manifest is polled with
 * If-None-Match (a 304 costs no body) every `pollSeconds`, and at once on a publish hint; only a new,
 * valid manifest triggers a reload. A poll that fails or finds a corrupt manifest keeps the last good
 * set, and `/health` says why; a reload that fails is tried again at the next poll.
 */
export function createBucketSource(options: BucketSourceOptions): SnapshotSource & { poll(): Promise<void> } {
  const { origin } = options;
  const now = options.now ?? Date.now;
  let current: { manifest: Manifest; etag: string } | null = null;
  let lastGoodMs: number | null = null;
  let problem: string | null = null;
  let polling: Promise<void> | null = null;
  const listeners = new Set<() => Promise<void>>();
  const stops = new Set<() => void>();

  const fail = (why: string) => {
    problem = options.endpoint ? why.replaceAll(options.endpoint, "the endpoint") : why;
  };

  const changed = async () => {
    try {
      for (const listener of listeners) await listener();
    } catch (error) {
      // Forget the tag, not the manifest: the next poll reads it again and the reload is retried.
      // Not per request: after a failed reload.
      if (current) current = { ...current, etag: "" };
      fail(`loading the manifest's files failed: ${(error as Error).message}`);
    }
  };

  /** Throws only when there never was a good manifest (a server's start). */
  const fetchManifest = async (): Promise<void> => {
    let taken = false;
    try {
      const answer = await origin.readIfChanged(MANIFEST_KEY, current?.etag || undefined, MAX_MANIFEST_BYTES);
      if (answer !== "unchanged" && answer !== undefined) {
        const manifest = parseManifest(answer.body);
        if ("problem" in manifest)
          throw new Error(`${MANIFEST_KEY} in ${options.url} is ${manifest.problem}`);
        current = { manifest, etag: answer.etag };
        taken = true;
      }
      // Unchanged, or nothing published yet (an empty set until the first publish).
      lastGoodMs = now();
      problem = null;
    } catch (error) {
      fail((error as Error).message);
      if (lastGoodMs === null) throw error;
      return;
    }
    if (taken) await changed();
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
    read: (key) => origin.read(key),
    stream: (key) => origin.readStream(key),
    watch(onChange) {
      listeners.add(onChange);
      const check = () =>
        void poll().catch((error) =>
          options.log(`snapshots: polling ${options.url} failed: ${(error as Error).message}`),
        );
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
      };
    },
    close() {
      for (const stop of [...stops]) stop();
      origin.close();
    },
  };
}
