import { LRUCache } from "lru-cache";
import { isFirmSlug } from "../../pipeline/domain/bench-firm.ts";
import {
  FIRM_TIERS,
  quotaWindow,
  TIERS,
  type TierLimits,
  type TierName,
} from "../../pipeline/domain/tiers.ts";
import { eraseReader, moveReader, readerLockKey } from "../readers/reader-store.ts";
import { withStoreLock } from "../store/store-lock.ts";
import type { Store } from "../store/types.ts";
import { generateKey, hashKey, isWellFormedKey, keyIdOf } from "./key-format.ts";

/** What the store keeps of a key: never the key itself. */
export interface KeyRecord {
  id: string;
  hash: string;
  tier: TierName;
  email: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
  /** The key that replaced this one on rotation. */
  replaced_by: string | null;
  /** The firm a bench-tier key belongs to; absent or null for every other tier. */
  firm?: string | null;
}

export type AuthFailure = "missing" | "malformed" | "unknown" | "revoked";

export interface Usage {
  limits: TierLimits;
  used: number;
  /** `null` when the tier is unlimited. */
  remaining: number | null;
  window_start: string;
  resets_at: string;
  /** Seconds until the window resets. */
  reset_seconds: number;
}

const recordKey = (hash: string) => `apikey:${hash}`;
const idKey = (id: string) => `apikeyid:${id}`;
const usageKey = (id: string, window: number) => `usage:${id}:${window}`;
/** A firm's keys, listed without reading every key: `apikeyfirm:{firm}:{id}` -> the key's hash. */
const FIRM_KEYS_PREFIX = "apikeyfirm";
const firmKey = (firm: string, id: string) => `${FIRM_KEYS_PREFIX}:${firm}:${id}`;

/** A key's record by its id (`key_...`), read from the store without a service: null when unknown. */
export async function findKeyById(store: Store, id: string): Promise<KeyRecord | null> {
  const hash = await store.getItem<string>(idKey(id));
  return hash === null ? null : store.getItem<KeyRecord>(recordKey(hash));
}

/** `findKeyById` of many ids, in two reads of the store whatever their number. */
export async function findKeysById(store: Store, ids: readonly string[]): Promise<(KeyRecord | null)[]> {
  const hashes = await store.getItems<string>(ids.map(idKey));
  const known = hashes.filter((hash): hash is string => hash !== null);
  const records = new Map(
    (await store.getItems<KeyRecord>(known.map(recordKey))).map((record, index) => [known[index], record]),
  );
  return hashes.map((hash) => (hash === null ? null : (records.get(hash) ?? null)));
}

export interface KeyService {
  issue(input: {
    tier: TierName;
    email: string;
    label: string;
    firm?: string | null;
  }): Promise<{ key: string; record: KeyRecord }>;
  authenticate(
    key: string | null | undefined,
  ): Promise<{ ok: true; record: KeyRecord } | { ok: false; why: AuthFailure }>;
  /**
   * `authenticate` by the key's stored hash, for a credential that stands for a key without holding
   * it (an OAuth token): the same record cache, so a revocation ends it as soon as it ends the key.
   */
  authenticateHash(hash: string): Promise<{ ok: true; record: KeyRecord } | { ok: false; why: AuthFailure }>;
  /** Spends `calls` (default 1) of the key's quota if that many are left: all of them or none. */
  spend(record: KeyRecord, calls?: number): Promise<{ allowed: boolean; usage: Usage }>;
  usage(record: KeyRecord): Promise<Usage>;
  find(keyOrId: string): Promise<KeyRecord | null>;
  /** Firms with at least one active key, sorted; reads only the firms' keys. */
  firms(): Promise<string[]>;
  /** The ids of a firm's keys that are not revoked. */
  firmKeyIds(firm: string): Promise<string[]>;
  list(): Promise<KeyRecord[]>;
  revoke(keyOrId: string): Promise<KeyRecord | null>;
  rotate(keyOrId: string): Promise<{ key: string; record: KeyRecord; old: KeyRecord } | null>;
}

// Key records barely change (revocation is the one change that matters), so a key seen recently is
// not fetched again: a keyed request then costs one store operation, the quota spend. A revocation
// made by another process takes effect within this many milliseconds; in this process, at once.
const RECORD_CACHE_MS = 5_000;
const RECORD_CACHE_SIZE = 10_000;

/** A key's quota window, with its dates in ISO form. */
interface KeyWindow {
  index: number;
  start: number;
  end: number;
  iso: [string, string];
}

export function createKeyService(options: { store: Store; prefix?: string; now?: () => number }): KeyService {
  const { store } = options;
  const now = options.now ?? Date.now;
  // By the key's hash, which only a record found in the store puts here: invented keys never enter.
  const records = new LRUCache<string, KeyRecord>({
    max: RECORD_CACHE_SIZE,
    ttl: RECORD_CACHE_MS,
    ttlResolution: 0,
    perf: { now },
  });

  // A key's window by its id: parsing the creation date and printing two dates on every keyed
  // request was 3-4% of its CPU. A window ends, so an entry is made again once its time has passed.
  const windows = new LRUCache<string, KeyWindow>({ max: RECORD_CACHE_SIZE });
  const windowOf = (record: KeyRecord, at: number): KeyWindow => {
    const known = windows.get(record.id);
    if (known && at >= known.start && at < known.end) return known;
    const window = quotaWindow(Date.parse(record.created_at), at, TIERS[record.tier].window_days);
    const made: KeyWindow = {
      index: window.index,
      start: window.start,
      end: window.end,
      iso: [new Date(window.start).toISOString(), new Date(window.end).toISOString()],
    };
    windows.set(record.id, made);
    return made;
  };

  const describeUsage = (record: KeyRecord, used: number, at: number): Usage => {
    const limits = TIERS[record.tier];
    const window = windowOf(record, at);
    const limit = limits.calls_per_window;
    return {
      limits,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      window_start: window.iso[0],
      resets_at: window.iso[1],
      reset_seconds: Math.max(1, Math.ceil((window.end - at) / 1000)),
    };
  };

  const find = async (keyOrId: string): Promise<KeyRecord | null> => {
    if (/^key_[0-9a-f]{16}$/.test(keyOrId)) return findKeyById(store, keyOrId);
    if (!isWellFormedKey(keyOrId, options.prefix)) return null;
    return store.getItem<KeyRecord>(recordKey(hashKey(keyOrId)));
  };

  const issue: KeyService["issue"] = async ({ tier, email, label, firm = null }) => {
    // A bug, not input: the CLI refuses these with a message before calling.
    if (FIRM_TIERS.includes(tier) !== (firm !== null) || (firm !== null && !isFirmSlug(firm))) {
      throw new TypeError(`a ${tier} key ${FIRM_TIERS.includes(tier) ? "needs" : "takes no"} valid firm`);
    }
    const key = generateKey(options.prefix);
    const hash = hashKey(key);
    const record: KeyRecord = {
      id: keyIdOf(hash),
      hash,
      tier,
      email,
      label,
      created_at: new Date(now()).toISOString(),
      revoked_at: null,
      replaced_by: null,
      ...(firm !== null ? { firm } : {}),
    };
    await store.setItem(recordKey(hash), record);
    await store.setItem(idKey(record.id), hash);
    if (firm !== null) await store.setItem(firmKey(firm, record.id), hash);
    return { key, record };
  };

  const revoke = async (keyOrId: string): Promise<KeyRecord | null> => {
    const record = await find(keyOrId);
    if (!record) return null;
    if (record.revoked_at !== null) return record;
    const revoked = { ...record, revoked_at: new Date(now()).toISOString() };
    await store.setItem(recordKey(record.hash), revoked);
    records.delete(record.hash);
    // A revoked key's reader profile goes with it: nothing can read or erase it any more.
    await eraseReader(store, record.id);
    return revoked;
  };

  /** The active key records listed under a firm index prefix (one firm, or all). */
  const activeFirmKeys = async (prefix: string): Promise<KeyRecord[]> => {
    const entries = await store.getKeys(prefix);
    const records = await Promise.all(
      entries.map(async (entry) => {
        const hash = await store.getItem<string>(entry);
        return hash === null ? null : store.getItem<KeyRecord>(recordKey(hash));
      }),
    );
    return records.filter(
      (record): record is KeyRecord => Boolean(record?.firm) && record?.revoked_at === null,
    );
  };

  /** The active record of a key's hash. */
  const byHash = async (
    hash: string,
  ): Promise<{ ok: true; record: KeyRecord } | { ok: false; why: AuthFailure }> => {
    let record = records.get(hash);
    if (!record) {
      // Only a record read from the store starts a cache period: refreshing it on every hit would
      // keep a busy key cached forever, and a revocation elsewhere would never be seen.
      const stored = await store.getItem<KeyRecord>(recordKey(hash));
      if (!stored) return { ok: false, why: "unknown" };
      records.set(hash, stored);
      record = stored;
    }
    if (record.revoked_at !== null) return { ok: false, why: "revoked" };
    return { ok: true, record };
  };

  return {
    issue,
    find,
    revoke,
    async authenticate(key) {
      if (!key) return { ok: false, why: "missing" };
      // The checksum refuses invented and mistyped keys before any store lookup. Looked up by hash:
      // no comparison of secrets happens, so there is no timing to measure.
      if (!isWellFormedKey(key, options.prefix)) return { ok: false, why: "malformed" };
      return byHash(hashKey(key));
    },
    authenticateHash: (hash) => byHash(hash),
    async spend(record, calls = 1) {
      const at = now();
      const window = windowOf(record, at);
      const limit = TIERS[record.tier].calls_per_window ?? Number.MAX_SAFE_INTEGER;
      const usage = usageKey(record.id, window.index);
      const { allowed, count } = await store.consume(usage, limit, window.end, calls);
      return { allowed, usage: describeUsage(record, count, at) };
    },
    async usage(record) {
      const at = now();
      const window = windowOf(record, at);
      return describeUsage(record, await store.peek(usageKey(record.id, window.index)), at);
    },
    async firms() {
      const active = await activeFirmKeys(FIRM_KEYS_PREFIX);
      return [...new Set(active.map((record) => record.firm as string))].sort();
    },
    async firmKeyIds(firm) {
      return (await activeFirmKeys(`${FIRM_KEYS_PREFIX}:${firm}`)).map((record) => record.id);
    },
    async list() {
      const ids = await store.getKeys("apikey");
      const records = await Promise.all(ids.map((key) => store.getItem<KeyRecord>(key)));
      return records
        .filter((record): record is KeyRecord => record !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
    async rotate(keyOrId) {
      const old = await find(keyOrId);
      if (!old || old.revoked_at !== null) return null;
      const fresh = await issue({
        tier: old.tier,
        email: old.email,
        label: old.label,
        firm: old.firm ?? null,
      });
      const retired = { ...old, revoked_at: fresh.record.created_at, replaced_by: fresh.record.id };
      await store.setItem(recordKey(old.hash), retired);
      records.delete(old.hash);
      // The reader behind the key is the same person: their profile follows the new key. Moved under
      // the profile's lock, so a write in flight lands before the move, or sees the key retired after it.
      const move = () => moveReader(store, old.id, fresh.record.id);
      if ((await withStoreLock(store, readerLockKey(old.id), move)) === null) await move();
      return { ...fresh, old: retired };
    },
  };
}
