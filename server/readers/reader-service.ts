// A reader's profile and list: the writes (one at a time per key, under a store lock, each refitting
// the personal model), the export, and the ranked day. The ranking itself is pure (pipeline/domain).

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { LibraryText, Unreadable } from "../../pipeline/domain/library-items.ts";
import { toCsl, withTexts } from "../../pipeline/domain/library-items.ts";
import type { SparseRow } from "../../pipeline/domain/logistic-regression.ts";
import {
  type DayIndex,
  indexDay,
  type MatchedText,
  matchedTexts,
  type PersonalItem,
  rankForReader,
} from "../../pipeline/domain/personal-ranking.ts";
import type { PersonalPicks, ProfileExport } from "../../pipeline/domain/reader-answers.ts";
import {
  type CompiledReaderModel,
  compileReaderModel,
  fitReaderModel,
  isCurrentModel,
  type ProfilePaper,
  READER_MODEL_SETTINGS,
  type ReaderBackground,
  type ReaderModel,
  readerBackground,
  rowOf,
} from "../../pipeline/domain/reader-model.ts";
import {
  changed,
  type Follows,
  type LibraryItem,
  type LibraryWrite,
  mergeLibrary,
  PROFILE_BOUNDS,
  type Profile,
  type RatingValue,
} from "../../pipeline/domain/reader-profile.ts";
import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { findKeyById, type KeyRecord } from "../access/key-service.ts";
import { withStoreLock } from "../store/store-lock.ts";
import type { Store } from "../store/types.ts";
import { feedTokenIssued } from "./feed-tokens.ts";
import { lookupsKey, type PendingReason } from "./pending-reasons.ts";
import {
  eraseReader,
  type ProfileStamp,
  readerLockKey,
  readFollows,
  readListInputs,
  readModel,
  readProfile,
  readStamp,
  readStamps,
  writeProfile,
} from "./reader-store.ts";
import type { ScreenedPaper, ScreenedSource } from "./screened-source.ts";

export interface ReaderServiceOptions {
  store: Store;
  now: () => number;
  screened: ScreenedSource;
  /** The shipped relevance model, whose vocabulary the personal models read papers with. */
  relevance: CompiledRelevance | null;
}

/** Why a write was refused: the caller turns each into its HTTP answer. */
export type WriteRefusal =
  | { refused: "busy" }
  | { refused: "too_many"; what: "library" | "ratings"; max: number; would_be: number }
  | { refused: "not_screened"; arxiv_id: string }
  | { refused: "revoked" };

export interface ReaderService {
  profile(keyId: string): Promise<Profile>;
  writeLibrary(
    record: KeyRecord,
    items: readonly LibraryItem[],
    unreadable: readonly Unreadable[],
    replace: boolean,
  ): Promise<LibraryWrite | WriteRefusal>;
  rate(record: KeyRecord, arxivId: string, rating: RatingValue | null): Promise<Profile | WriteRefusal>;
  follow(record: KeyRecord, follows: Follows): Promise<Profile | WriteRefusal>;
  exportProfile(record: KeyRecord): Promise<ProfileExport>;
  erase(keyId: string): Promise<number>;
  /** The day's list for the key; null when the day has no screened papers. */
  picks(record: KeyRecord, date: string, limit: number, capped: boolean): Promise<PersonalPicks | null>;
  /**
   * `picks` as JSON text, kept per key, profile stamp (version and nonce), day and limit: a list changes
   * only when one of them does, so a repeated read costs the version's store read, not a ranking.
   */
  picksJson(record: KeyRecord, date: string, limit: number, capped: boolean): Promise<string | null>;
  /** A day's list for a profile already read (the daily delivery ranks many keys' lists this way). */
  rankDay(keyId: string, date: string, explain: number): Promise<RankedDay | null>;
  /** `rankDay` of many keys, their profiles read together: the daily delivery's lists, a chunk at a time. */
  rankDays(keyIds: readonly string[], date: string, explain: number): Promise<(RankedDay | null)[]>;
  /**
   * The daily job's completion of pending items (pending-lookup.ts): each pending item whose arXiv id
   * has a text in `texts` takes it, the profile's model is refitted, and `reasons` (why the others are
   * still pending) is kept for the export. How many items were completed; 0 when the profile was
   * erased meanwhile, or its lock not had.
   */
  completeLibrary(
    keyId: string,
    texts: ReadonlyMap<string, LibraryText>,
    reasons: Readonly<Record<string, PendingReason>>,
  ): Promise<number>;
}

export interface RankedDay {
  papers: readonly ScreenedPaper[];
  items: PersonalItem[];
  version: number;
  /** The profile's stamp tag (reader-store.ts): what a cache of the list is keyed by. */
  tag: string;
  personal: boolean;
  /**
   * Ranked with the model of the profile's version: false when the refit of an outdated model could
   * not have the profile's lock (the list is then in the global order, this once), or the model read
   * was fitted on another version (a write between the two reads). Such a list is neither cached nor
   * stored as a delivery's list.
   */
  kept: boolean;
}

// Compiled models are sparse (about 15 KB each): a bounded number are kept; compiling one again costs
// tens of microseconds.
const COMPILED_MODELS = 2_048;
const DAY_ROWS = 64;
/** Library items' rows, by their text: a refit after one more item reads that item's text only. */
const ITEM_ROWS = 20_000;
/** Answers kept, by their bytes: a 25-paper list with its reasons is 15-20 KB. */
const ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * A digest of a paper's text: names its row in the process's row cache (`itemRows`) without keeping
 * the text. Only that in-memory cache is keyed by it, nothing stored. A collision would give an item
 * another text's row, so it is a cryptographic hash (as cheap as a hand-rolled 32-bit one here), not a
 * short checksum.
 */
function textHash(text: { title: string; summary: string }): string {
  // The title's length first: no title and summary pair reads as another's.
  return createHash("sha256")
    .update(`${text.title.length}:${text.title}`)
    .update(text.summary)
    .digest("base64url");
}

/** The answer of GET /v1/me/picks from a ranked day. */
function picksOf(
  record: KeyRecord,
  date: string,
  limit: number,
  capped: boolean,
  ranked: RankedDay,
): PersonalPicks {
  const { papers, items } = ranked;
  return {
    date,
    tier: record.tier,
    profile_version: ranked.version,
    personal: ranked.personal,
    limit,
    capped: capped ? ["limit"] : [],
    screened: papers.length,
    items: items.slice(0, limit).map((item, position) => {
      const paper = papers[item.index] as ScreenedPaper;
      return {
        rank: position + 1,
        global_rank: item.index + 1,
        arxiv_id: paper.arxiv_id,
        title: paper.title,
        authors: [...paper.authors],
        abs_url: paper.abs_url,
        picked: paper.picked,
        for_you: item.for_you,
        why_for_you: item.why_for_you,
      };
    }),
  };
}

export function createReaderService(options: ReaderServiceOptions): ReaderService {
  const { store, screened, relevance } = options;
  const rowsOfDay = new LRUCache<string, SparseRow[]>({ max: DAY_ROWS });
  const indexOfDay = new LRUCache<string, DayIndex>({ max: DAY_ROWS });
  const itemRows = new LRUCache<string, SparseRow>({ max: ITEM_ROWS });
  // The background's sums, for the newest screened days they were made from.
  let background: { key: string; sums: ReaderBackground } | null = null;
  const compiled = new LRUCache<
    string,
    { version: number; tag: string; model: CompiledReaderModel | null; follows: Follows; kept: boolean }
  >({ max: COMPILED_MODELS });
  const answers = new LRUCache<string, string>({
    maxSize: ANSWER_BYTES,
    sizeCalculation: (text, key) => text.length + key.length,
  });

  // Keyed by the day's papers themselves: a republished day is another list.
  const textsOfDay = new WeakMap<readonly ScreenedPaper[], MatchedText[]>();
  const texts = (papers: readonly ScreenedPaper[]): MatchedText[] => {
    let found = textsOfDay.get(papers);
    if (!found) {
      found = matchedTexts(papers);
      textsOfDay.set(papers, found);
    }
    return found;
  };

  const rows = (date: string, papers: readonly ScreenedPaper[]): SparseRow[] | undefined => {
    if (!relevance) return undefined;
    const key = `${relevance.model.version}|${date}|${papers.length}`;
    let found = rowsOfDay.get(key);
    if (!found) {
      found = papers.map((paper) => rowOf(paper, relevance.model.features, relevance.vocabulary));
      rowsOfDay.set(key, found);
    }
    return found;
  };

  const dayIndex = (date: string, papers: readonly ScreenedPaper[]): DayIndex | undefined => {
    const dayRows = rows(date, papers);
    if (!dayRows || !relevance) return undefined;
    const key = `${relevance.model.version}|${date}|${papers.length}`;
    let found = indexOfDay.get(key);
    if (!found) {
      found = indexDay(papers, dayRows);
      indexOfDay.set(key, found);
    }
    return found;
  };

  const statusOf = async (item: LibraryItem): Promise<"ready" | "pending"> =>
    item.title !== null || (item.arxiv_id !== null && (await screened.find(item.arxiv_id)) !== null)
      ? "ready"
      : "pending";

  /** The background's sums over the newest screened days, made again when a day is published. */
  const backgroundNow = async (): Promise<ReaderBackground | null> => {
    if (!relevance) return null;
    const papers: { arxiv_id: string; row: SparseRow }[] = [];
    const parts: string[] = [relevance.model.version];
    for (const date of screened.dates()) {
      if (papers.length >= READER_MODEL_SETTINGS.background) break;
      const day = await screened.day(date);
      const dayRows = day && rows(date, day);
      if (!day || !dayRows) continue;
      parts.push(`${date}:${day.length}`);
      day.forEach((paper, i) => {
        papers.push({ arxiv_id: paper.arxiv_id, row: dayRows[i] as SparseRow });
      });
    }
    const key = parts.join("|");
    if (background?.key !== key) {
      background = { key, sums: readerBackground(papers, relevance.vocabulary.idf.length) };
    }
    return background.sums;
  };

  /** The personal model of a profile: its library and liked papers against the newest screened days. */
  const refit = async (profile: Profile): Promise<ReaderModel | null> => {
    if (!relevance) return null;
    const { features } = relevance.model;
    const paperOf = async (item: {
      key: string;
      arxiv_id: string | null;
      title: string | null;
      abstract?: string | null;
    }): Promise<ProfilePaper | null> => {
      const seen = item.arxiv_id === null ? null : await screened.find(item.arxiv_id);
      const text =
        seen ??
        (item.title === null ? null : { title: item.title, summary: item.abstract ?? "", categories: [] });
      if (!text) return null;
      const rowKey = `${relevance.model.version}|${item.key}|${textHash(text)}`;
      let row = itemRows.get(rowKey);
      if (!row) {
        row = rowOf(text, features, relevance.vocabulary);
        itemRows.set(rowKey, row);
      }
      return { key: item.key, arxiv_id: item.arxiv_id, title: seen?.title ?? item.title ?? "", row };
    };
    const rated = Object.entries(profile.ratings);
    const known = (papers: (ProfilePaper | null)[]) =>
      papers.filter((paper): paper is ProfilePaper => paper !== null);
    const ratedOf = (value: number) =>
      Promise.all(
        rated
          .filter(([, rating]) => rating === value)
          .map(([id]) => paperOf({ key: `arxiv:${id}`, arxiv_id: id, title: null })),
      );
    const sums = await backgroundNow();
    if (!sums) return null;
    return fitReaderModel({
      profileVersion: profile.version,
      relevanceVersion: relevance.model.version,
      features: relevance.vocabulary.idf.length,
      library: known(await Promise.all(profile.library.map(paperOf))),
      liked: known(await ratedOf(1)),
      disliked: known(await ratedOf(-1)),
      background: sums,
    });
  };

  /** Runs a profile change under the key's lock, refits and writes it; `busy` when the lock was not had. */
  const change = async <T>(
    keyId: string,
    work: (profile: Profile, at: string) => Promise<{ profile: Profile; answer: T } | WriteRefusal>,
  ): Promise<T | WriteRefusal> => {
    const done = await withStoreLock<T | WriteRefusal>(store, readerLockKey(keyId), async () => {
      const before = await readProfile(store, keyId);
      const result = await work(before, new Date(options.now()).toISOString());
      if ("refused" in result) return result;
      await writeProfile(store, keyId, result.profile, await refit(result.profile));
      compiled.delete(keyId);
      // Another process may have revoked or rotated the key while this wrote (its key cache lags by
      // seconds). Read after the write: a revocation already made is seen here and the write undone;
      // one made later erases (or moves) the profile itself, after this lock.
      const after = await findKeyById(store, keyId);
      if (after?.revoked_at !== null) {
        // Rotated, and the profile was here when this write began: the move to the new key (under this
        // lock, so after this write) has not run, and carries the write with the rest. The write stands.
        // Found empty, the move may have run already and this write would be left under a retired key:
        // undone, 401, and the reader writes again through the new key.
        if (after?.replaced_by && before.version > 0) return result.answer;
        await eraseReader(store, keyId);
        return { refused: "revoked" as const };
      }
      return result.answer;
    });
    return done ?? { refused: "busy" };
  };

  /**
   * Refits a profile's outdated model under its lock and stores it; undefined when the lock was not had.
   * Nothing is written for a profile erased since its version was read, nor kept for a key revoked
   * meanwhile (a revocation erases without this lock): read back after the write, as `change` does.
   */
  const refreshModel = async (keyId: string): Promise<ReaderModel | null | undefined> => {
    const done = await withStoreLock(store, readerLockKey(keyId), async () => {
      const profile = await readProfile(store, keyId);
      if (profile.version === 0) return { model: null };
      const model = await refit(profile);
      await writeProfile(store, keyId, profile, model);
      compiled.delete(keyId);
      // Rotated instead, the move to the new key (under this lock, so after this write) carries it.
      const after = await findKeyById(store, keyId);
      if (after?.revoked_at !== null && !after?.replaced_by) {
        await eraseReader(store, keyId);
        return { model: null };
      }
      return { model };
    });
    return done?.model;
  };

  /** `kept`: whether the list ranked with it may be kept under its stamp. */
  type Held = {
    version: number;
    tag: string;
    model: CompiledReaderModel | null;
    follows: Follows;
    kept: boolean;
  };
  /** The compiled model and follows of a key's profile at `stamp`: cached, or compiled from `stored`. */
  const heldOf = async (
    keyId: string,
    { version, tag }: ProfileStamp,
    stored: () => Promise<{ follows: Follows; model: ReaderModel | null }>,
  ): Promise<Held> => {
    const cached = compiled.get(keyId);
    if (cached && cached.tag === tag) return cached;
    const { follows, model } = version === 0 ? { follows: null, model: null } : await stored();
    // A model of an older layout or relevance model is refitted once, under the profile's lock.
    const usable =
      model && relevance && !isCurrentModel(model, relevance.model.version)
        ? await refreshModel(keyId)
        : model;
    // Kept only when it is the version's own model: not when the refit's lock was not had (the list
    // is in the global order this once, and the next read tries again), nor when the model was fitted
    // on another version of the profile (a write, or a refit, between the two reads).
    const kept = usable !== undefined && (usable === null || usable.profile_version === version);
    const held = {
      version,
      tag,
      model: usable && relevance ? compileReaderModel(usable, relevance.vocabulary.idf.length) : null,
      follows: follows ?? { authors: [], phrases: [] },
      kept,
    };
    if (kept) compiled.set(keyId, held);
    return held;
  };

  const rankedWith = (
    date: string,
    papers: readonly ScreenedPaper[],
    held: Held,
    explain: number,
  ): RankedDay => {
    const day = held.model ? dayIndex(date, papers) : undefined;
    const follows = held.follows.authors.length + held.follows.phrases.length > 0;
    const items = rankForReader({
      candidates: papers,
      ...(day ? { day } : {}),
      ...(follows ? { texts: texts(papers) } : {}),
      model: held.model,
      follows: held.follows,
      explain,
    });
    const personal = held.model !== null || held.follows.authors.length + held.follows.phrases.length > 0;
    return { papers, items, version: held.version, tag: held.tag, personal, kept: held.kept };
  };

  const listOf = async (keyId: string, date: string, explain: number): Promise<RankedDay | null> => {
    const papers = await screened.day(date);
    if (!papers) return null;
    const stamp = await readStamp(store, keyId);
    const held = await heldOf(keyId, stamp, async () => {
      const [follows, model] = await Promise.all([readFollows(store, keyId), readModel(store, keyId)]);
      return { follows, model };
    });
    return rankedWith(date, papers, held, explain);
  };

  // Many keys' lists: their versions in one store read, then the follows and models of those not
  // compiled at that version in another, instead of two or three reads per key.
  const listsOf = async (keyIds: readonly string[], date: string, explain: number) => {
    const papers = await screened.day(date);
    if (!papers) return keyIds.map(() => null);
    const stamps = await readStamps(store, keyIds);
    const stale = keyIds.filter(
      (keyId, index) => stamps[index]?.version !== 0 && compiled.get(keyId)?.tag !== stamps[index]?.tag,
    );
    const inputs = await readListInputs(store, stale);
    const read = new Map(stale.map((keyId, index) => [keyId, inputs[index]]));
    return Promise.all(
      keyIds.map(async (keyId, index) => {
        const held = await heldOf(keyId, stamps[index] as ProfileStamp, async () => {
          const found = read.get(keyId);
          if (found) return found;
          // Compiled at this version when the batch was read, and evicted since: read on its own.
          const [follows, model] = await Promise.all([readFollows(store, keyId), readModel(store, keyId)]);
          return { follows, model };
        });
        return rankedWith(date, papers, held, explain);
      }),
    );
  };

  const service: ReaderService = {
    profile: (keyId) => readProfile(store, keyId),
    async writeLibrary(record, items, unreadable, replace) {
      const max = PROFILE_BOUNDS[record.tier].library;
      return change<LibraryWrite>(record.id, async (profile, at) => {
        const merged = mergeLibrary(profile.library, items, replace);
        if (merged.library.length > max) {
          return { refused: "too_many", what: "library", max, would_be: merged.library.length };
        }
        const next = changed(profile, { library: merged.library }, at);
        const added = await Promise.all(
          merged.added.map(async (item) => ({ key: item.key, status: await statusOf(item) })),
        );
        return {
          profile: next,
          answer: {
            added,
            duplicates: merged.duplicates.map((item) => ({
              key: item.key,
              reason: replace
                ? "named twice in this body"
                : "already in the library, or named twice in this body",
            })),
            unreadable: [...unreadable],
            library_size: next.library.length,
            library_max: max,
            version: next.version,
          },
        };
      });
    },
    async rate(record, arxivId, rating) {
      const max = PROFILE_BOUNDS[record.tier].ratings;
      return change<Profile>(record.id, async (profile, at) => {
        const ratings = { ...profile.ratings };
        if (rating === null) {
          if (!(arxivId in ratings)) return { profile, answer: profile };
          delete ratings[arxivId];
        } else {
          if ((await screened.find(arxivId)) === null) return { refused: "not_screened", arxiv_id: arxivId };
          ratings[arxivId] = rating;
          const count = Object.keys(ratings).length;
          if (count > max) return { refused: "too_many", what: "ratings", max, would_be: count };
        }
        const next = changed(profile, { ratings }, at);
        return { profile: next, answer: next };
      });
    },
    async follow(record, follows) {
      return change<Profile>(record.id, async (profile, at) => {
        const next = changed(profile, { follows }, at);
        return { profile: next, answer: next };
      });
    },
    async exportProfile(record) {
      const [profile, model] = await Promise.all([
        readProfile(store, record.id),
        readModel(store, record.id),
      ]);
      const pending: string[] = [];
      for (const item of profile.library) if ((await statusOf(item)) === "pending") pending.push(item.key);
      const reasons = (await store.getItem<Record<string, PendingReason>>(lookupsKey(record.id))) ?? {};
      const byKey = new Map(profile.library.map((item) => [item.key, item.arxiv_id]));
      return {
        key_id: record.id,
        tier: record.tier,
        version: profile.version,
        updated_at: profile.updated_at,
        library: profile.library.map(toCsl),
        pending,
        pending_reasons: pending.map((key) => {
          const found = reasons[byKey.get(key) ?? ""];
          return {
            key,
            reason: found?.reason ?? "waiting for the daily job's arXiv lookup",
            looked_up_at: found?.at ?? null,
          };
        }),
        ratings: Object.entries(profile.ratings)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([arxiv_id, rating]) => ({ arxiv_id, rating })),
        follows: profile.follows,
        model: model && {
          profile_version: model.profile_version,
          relevance_version: model.relevance_version,
          positives: model.positives,
          negatives: model.negatives,
          // A model stored before its terms were packed counted them as its columns.
          terms: model.term_count ?? (model as { columns?: unknown[] }).columns?.length ?? 0,
        },
        bounds: PROFILE_BOUNDS[record.tier],
        feed_token: await feedTokenIssued(store, record.id),
      };
    },
    async erase(keyId) {
      // Under the profile's lock, so that a write in flight cannot write its profile back after the
      // erasure; erased all the same when the lock is not had in time (erasure must not wait on a write).
      const erased =
        (await withStoreLock(store, readerLockKey(keyId), () => eraseReader(store, keyId))) ??
        (await eraseReader(store, keyId));
      // The nonce keeps every process from serving the erased profile's lists; these go now as well.
      compiled.delete(keyId);
      for (const key of [...answers.keys()]) if (key.startsWith(`${keyId}|`)) answers.delete(key);
      return erased;
    },
    async picksJson(record, date, limit, capped) {
      const { tag } = await readStamp(store, record.id);
      // The screened day's length keys a republished day apart from the one kept.
      const papers = await screened.day(date);
      if (!papers) return null;
      const key = `${record.id}|${tag}|${date}|${papers.length}|${record.tier}|${limit}|${capped}`;
      const kept = answers.get(key);
      if (kept !== undefined) return kept;
      const ranked = await listOf(record.id, date, limit);
      if (!ranked) return null;
      const text = JSON.stringify(picksOf(record, date, limit, capped, ranked));
      // Kept only under the stamp it was ranked with (a write between the two reads made a new one),
      // and not when its model could not be had this time.
      if (ranked.tag === tag && ranked.kept) answers.set(key, text);
      return text;
    },
    async picks(record, date, limit, capped) {
      const ranked = await listOf(record.id, date, limit);
      return ranked && picksOf(record, date, limit, capped, ranked);
    },
    rankDay: listOf,
    rankDays: listsOf,
    async completeLibrary(keyId, texts, reasons) {
      const done = await withStoreLock(store, readerLockKey(keyId), async () => {
        const profile = await readProfile(store, keyId);
        // Erased since the pending ids were read: nothing of it is written back.
        if (profile.version === 0) return 0;
        if (Object.keys(reasons).length > 0) await store.setItem(lookupsKey(keyId), reasons);
        else await store.removeItem(lookupsKey(keyId));
        const { library, filled } = withTexts(profile.library, texts);
        if (filled > 0) {
          const next = changed(profile, { library }, new Date(options.now()).toISOString());
          await writeProfile(store, keyId, next, await refit(next));
          compiled.delete(keyId);
        }
        // A revocation made while this ran (it erases without this lock) would find its reasons and
        // profile written back: read after the writes and undone, as in `change` (a rotation's move,
        // under this lock, carries them instead).
        const after = await findKeyById(store, keyId);
        if (after?.revoked_at !== null && !after?.replaced_by) {
          await eraseReader(store, keyId);
          return 0;
        }
        return filled;
      });
      return done ?? 0;
    },
  };
  return service;
}
