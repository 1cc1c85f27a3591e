// The daily job's look at the libraries' pending items: an arXiv id whose paper the service has no text
// for (not among the screened papers when it was added, and brought without a title). Once a day,
// after the day's screened file is written, every profile's pending ids are collected: those now
// screened take their text from there, the rest are asked of the arXiv API (the caller's lookup: the
// existing client, batched and rate-limited). Each profile that gained a text is completed and its
// model refitted; an id arXiv does not know, or a lookup that failed, stays pending with its reason.

import { arxivIdFlaw } from "../../pipeline/domain/arxiv-id.ts";
import type { LibraryText } from "../../pipeline/domain/library-items.ts";
import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { createSnapshotCache } from "../snapshots/snapshot-cache.ts";
import type { Store } from "../store/types.ts";
import { deferredReaderService } from "./deferred-reader-service.ts";
import { lookupsKey, type PendingReason } from "./pending-reasons.ts";
import type { ReaderService } from "./reader-service.ts";
import { readProfile } from "./reader-store.ts";
import { publishedScreenedSource, type ScreenedSource } from "./screened-source.ts";

/** What the arXiv API said of a batch of ids: their texts, those it does not know, those it failed on. */
export interface LookupAnswer {
  found: ReadonlyMap<string, LibraryText>;
  unknown: readonly string[];
  /** Ids whose request failed, with why (the next daily run asks again). */
  failed: ReadonlyMap<string, string>;
}

export type ArxivLookup = (ids: readonly string[]) => Promise<LookupAnswer>;

/** Ids asked of arXiv in one run at most (20 requests of 100, a minute at arXiv's pace); the rest wait a day. */
const MAX_LOOKUPS_PER_RUN = 2_000;

/** An id arXiv did not know is asked again after this many days (it may be announced later), not daily. */
const UNKNOWN_RETRY_DAYS = 7;

export interface PendingReport {
  /** Profiles with pending items, and those completed (and refitted). */
  profiles: number;
  completed: number;
  /** Ids found among the screened papers, asked of arXiv, found there, unknown to it, failed. */
  screened: number;
  asked: number;
  found: number;
  unknown: number;
  failed: number;
}

export interface PendingDeps {
  store: Store;
  readers: Pick<ReaderService, "completeLibrary">;
  screened: ScreenedSource;
  /** Null when the run is offline: nothing is asked, and pending items wait. */
  lookup: ArxivLookup | null;
  now: () => number;
  /** Ids asked in one run at most; MAX_LOOKUPS_PER_RUN unless told. */
  maxLookups?: number;
}

const PROFILE_KEY = /^reader:([^:]+):profile$/;

/** The pending arXiv ids of every profile, by key id. */
export async function pendingByKey(store: Store): Promise<Map<string, string[]>> {
  const pending = new Map<string, string[]>();
  for (const key of await store.getKeys("reader")) {
    const keyId = PROFILE_KEY.exec(key)?.[1];
    if (keyId === undefined) continue;
    const ids = (await readProfile(store, keyId)).library.flatMap((item) =>
      item.title === null && item.arxiv_id !== null ? [item.arxiv_id] : [],
    );
    if (ids.length > 0) pending.set(keyId, ids);
  }
  return pending;
}

/** Completes the profiles' pending items where a text is found; see the file comment. */
export async function resolvePendingItems(
  deps: PendingDeps,
  pending: ReadonlyMap<string, readonly string[]>,
): Promise<PendingReport> {
  const ids = [...new Set([...pending.values()].flat())].sort();
  const at = new Date(deps.now()).toISOString();
  const before = await lastLookups(deps.store, pending);
  const { texts, flaws, ask } = await sortPending(deps, ids, before);
  const asked = deps.lookup ? ask.slice(0, deps.maxLookups ?? MAX_LOOKUPS_PER_RUN) : [];
  const answer = await askArxiv(deps.lookup, asked);
  for (const [id, text] of answer.found) texts.set(id, text);
  const reasonOf = pendingReasons({ at, texts, flaws, asked: new Set(asked), answer, before, deps });
  let completed = 0;
  for (const [keyId, mine] of pending) {
    const found = new Map(mine.flatMap((id) => (texts.has(id) ? [[id, texts.get(id) as LibraryText]] : [])));
    const reasons = Object.fromEntries(
      mine.flatMap((id) => {
        const reason = reasonOf(id);
        return reason === null ? [] : [[id, reason]];
      }),
    );
    if ((await deps.readers.completeLibrary(keyId, found, reasons)) > 0) completed += 1;
  }
  return {
    profiles: pending.size,
    completed,
    screened: ids.length - ask.length,
    asked: asked.length,
    found: answer.found.size,
    unknown: answer.unknown.length,
    failed: answer.failed.size,
  };
}

/**
 * Each pending id sorted: its text when it is screened now, why it cannot be an arXiv id, or else in
 * `ask`, the ids to ask arXiv, least recently asked first, without those still backed off.
 */
async function sortPending(
  deps: PendingDeps,
  ids: readonly string[],
  before: ReadonlyMap<string, PendingReason>,
): Promise<{ texts: Map<string, LibraryText>; flaws: Map<string, string>; ask: string[] }> {
  const texts = new Map<string, LibraryText>();
  const flaws = new Map<string, string>();
  const ask: string[] = [];
  const retryAfter = new Date(deps.now() - UNKNOWN_RETRY_DAYS * 86_400_000).toISOString();
  for (const id of ids) {
    const paper = await deps.screened.find(id);
    if (paper) {
      texts.set(id, { title: paper.title, abstract: paper.summary, authors: [...paper.authors] });
      continue;
    }
    // An id that cannot exist is answered by arXiv with an error that fails its whole batch: never asked.
    const flaw = arxivIdFlaw(id);
    if (flaw !== undefined) flaws.set(id, flaw);
    else {
      const last = before.get(id);
      if (!(last?.unknown && last.asked_at !== undefined && last.asked_at > retryAfter)) ask.push(id);
    }
  }
  // The least recently asked first (never asked before all), so no run asks the same ids as the last.
  const askedAt = (id: string) => before.get(id)?.asked_at ?? "";
  ask.sort((a, b) =>
    askedAt(a) < askedAt(b) ? -1 : askedAt(a) > askedAt(b) ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
  return { texts, flaws, ask };
}

const NOTHING_ASKED: LookupAnswer = { found: new Map(), unknown: [], failed: new Map() };

/** arXiv's answer for `asked`; a lookup that throws fails each of its ids, with why. */
async function askArxiv(lookup: ArxivLookup | null, asked: readonly string[]): Promise<LookupAnswer> {
  if (!lookup || asked.length === 0) return NOTHING_ASKED;
  return lookup(asked).catch((error: unknown) => ({
    found: new Map(),
    unknown: [],
    failed: new Map(asked.map((id) => [id, `the arXiv API failed: ${(error as Error).message}`])),
  }));
}

/** Why each id still pending is pending after this run (null for an id that has its text now). */
function pendingReasons(run: {
  at: string;
  texts: ReadonlyMap<string, LibraryText>;
  flaws: ReadonlyMap<string, string>;
  asked: ReadonlySet<string>;
  answer: LookupAnswer;
  before: ReadonlyMap<string, PendingReason>;
  deps: Pick<PendingDeps, "lookup">;
}): (id: string) => PendingReason | null {
  const { at, texts, flaws, asked, answer, before } = run;
  const unknownNow = new Set(answer.unknown);
  const waiting = run.deps.lookup
    ? "waiting for the daily job's arXiv lookup (more ids were pending than one run asks)"
    : "waiting for the daily job's arXiv lookup (this run was offline)";
  return (id) => {
    if (texts.has(id)) return null;
    const flaw = flaws.get(id);
    if (flaw !== undefined)
      return { at, reason: `this cannot be an arXiv id (${flaw}); it is never looked up` };
    if (asked.has(id)) {
      if (unknownNow.has(id)) {
        return {
          at,
          reason: `arXiv does not know this id (looked up by the daily job; asked again in ${UNKNOWN_RETRY_DAYS} days)`,
          asked_at: at,
          unknown: true,
        };
      }
      return { at, reason: answer.failed.get(id) ?? "the arXiv API gave no answer for it", asked_at: at };
    }
    const last = before.get(id);
    // Backed off: what the last lookup found still stands.
    if (last?.unknown) return last;
    return { ...last, at, reason: waiting };
  };
}

/** What the last runs recorded of each pending id, across the profiles that hold it (the latest ask wins). */
async function lastLookups(
  store: Store,
  pending: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, PendingReason>> {
  const last = new Map<string, PendingReason>();
  for (const [keyId, mine] of pending) {
    const record = (await store.getItem<Record<string, PendingReason>>(lookupsKey(keyId))) ?? {};
    for (const id of mine) {
      const seen = record[id];
      if (seen === undefined) continue;
      const held = last.get(id);
      if (held === undefined || (seen.asked_at ?? "") > (held.asked_at ?? "")) last.set(id, seen);
    }
  }
  return last;
}

/**
 * What `picks curate` runs after writing a day: the pending items of every profile completed from the
 * published folder's screened papers and `lookup`, and the profiles refitted as a server would (the
 * same history and model). Nothing is opened or loaded when no item is pending.
 */
export async function completePendingItems(options: {
  store: Store;
  now: () => number;
  lookup: ArxivLookup | null;
  publicDir: string;
  relevance: () => Promise<CompiledRelevance | null>;
}): Promise<PendingReport> {
  const pending = await pendingByKey(options.store);
  if (pending.size === 0) {
    return { profiles: 0, completed: 0, screened: 0, asked: 0, found: 0, unknown: 0, failed: 0 };
  }
  const snapshots = await createSnapshotCache({ publicDir: options.publicDir });
  try {
    const screened = publishedScreenedSource(snapshots);
    const readers = deferredReaderService(
      { store: options.store, now: options.now, screened },
      options.relevance,
    );
    return await resolvePendingItems(
      { store: options.store, readers, screened, lookup: options.lookup, now: options.now },
      pending,
    );
  } finally {
    snapshots.close();
  }
}
