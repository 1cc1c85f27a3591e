import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DailySnapshot } from "../pipeline/domain/snapshot.ts";
import { siteUrlFromEnv } from "../pipeline/feeds.ts";
import { createStoreFromEnv, DATABASE_NAME, stateDir } from "../server/store/from-env.ts";
import { announcePublishedDay, recordDayQuietly } from "../server/webhooks/daily-announcer.ts";
import type { Output } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";

/**
 * Whether servers keep state that curate should write to: Redis, or an embedded database that
 * already exists. Curate alone, on a machine without a server, creates none (and then there are no
 * webhooks to tell and no firms to build views for).
 */
export function serversStoreExists(env: NodeJS.ProcessEnv): boolean {
  const kind = env.STATE_STORE?.trim() || (env.REDIS_URL?.trim() ? "redis" : "sqlite");
  if (kind === "memory") return false;
  return kind === "redis" || existsSync(join(stateDir(env, PROJECT_ROOT), DATABASE_NAME));
}

/**
 * After `picks curate` published a day: queue its `daily.published` event in the servers' store, so
 * receivers hear of it even before a server notices the files (same event id: sent once either way).
 * Only a store a server uses: Redis, or an embedded database that already exists (curate alone, on a
 * machine without a server, creates none). A failure here never fails the curation.
 */
export async function announceToServers(
  day: DailySnapshot,
  env: NodeJS.ProcessEnv,
  out: Output,
): Promise<void> {
  if (!serversStoreExists(env)) return;
  try {
    const store = await createStoreFromEnv(env, { rootDir: PROJECT_ROOT });
    try {
      const sent = await announcePublishedDay({ store, now: Date.now, siteUrl: siteUrlFromEnv(env) }, day);
      if (sent) out.progress(`webhooks: daily.published queued for ${day.date}`);
    } finally {
      await store.close();
    }
  } catch (error) {
    out.progress(`webhooks: could not queue daily.published for ${day.date}: ${(error as Error).message}`);
  }
}

/**
 * Before an import of history writes a day: record it in the servers' store as announced, so that no
 * `daily.published` goes out for it, from curate or from a server that sees the file. Unlike
 * announcing, a failure here stops the import before the day is written: written, it would be news.
 */
export async function recordQuietlyInServers(
  date: string,
  env: NodeJS.ProcessEnv,
  out: Output,
): Promise<void> {
  if (!serversStoreExists(env)) return;
  const store = await createStoreFromEnv(env, { rootDir: PROJECT_ROOT });
  try {
    if (await recordDayQuietly({ store, now: Date.now, siteUrl: siteUrlFromEnv(env) }, date)) {
      out.progress(`webhooks: ${date} recorded as published without an announcement`);
    }
  } finally {
    await store.close();
  }
}
