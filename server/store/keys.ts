import { createHash, createHmac } from "node:crypto";

// Lowercase only, so that two keys never share a file on a case-insensitive file system; no "/" or
// "?" (unstorage rewrites or cuts them) and no leading "." (no "." / ".." segments, no hidden files).
const SEGMENT = "[a-z0-9_-][a-z0-9_.-]*";
const KEY_RE = new RegExp(`^${SEGMENT}(?::${SEGMENT})*$`);
const MAX_KEY_LENGTH = 200;

/** Throws unless `key` is lowercase segments `[a-z0-9_.-]` joined by ":", not starting with "_". */
export function assertKey(key: string): string {
  assertStoreKey(key);
  if (key.startsWith("_")) {
    throw new Error(`Expected a store key not starting with "_" (reserved for the store), got ${show(key)}`);
  }
  return key;
}

/** Throws unless `prefix` is "" or a valid key; returns the unstorage base it stands for. */
export function assertPrefix(prefix: string): string {
  if (prefix !== "") {
    assertStoreKey(prefix);
  }
  return prefix;
}

function assertStoreKey(key: string): void {
  if (typeof key !== "string" || key.length > MAX_KEY_LENGTH || !KEY_RE.test(key)) {
    throw new Error(
      `Expected a store key of lowercase segments [a-z0-9_.-] joined by ":" (at most ${MAX_KEY_LENGTH} ` +
        `characters, no segment starting with "."), got ${show(key)}; hash free text with hashKeyPart()`,
    );
  }
}

/** Reserved keys of the store itself. */
export function sequenceKey(sequence: string): string {
  return `_seq:${assertKey(sequence)}`;
}

export function queueKey(
  name: string,
  part?: "pending" | "inflight" | "tokens" | "members" | "delayed",
): string {
  const base = `_queue:${assertKey(name)}`;
  return part ? `${base}:${part}` : base;
}

export function isReservedKey(key: string): boolean {
  return key.startsWith("_");
}

/**
 * A key segment standing for free text (an IP address, an email): 32 hex digits of SHA-256, or of
 * HMAC-SHA-256 when `secret` is given (unkeyed hashes of IPv4 addresses can be reversed by brute force).
 * @example `ip:${hashKeyPart(clientIp, secret)}:${windowStart}`
 */
export function hashKeyPart(value: string, secret?: string): string {
  const hash = secret === undefined ? createHash("sha256") : createHmac("sha256", secret);
  return hash.update(value, "utf8").digest("hex").slice(0, 32);
}

export function assertTtl(opts: { ttlSeconds?: number } | undefined): number | undefined {
  const ttl = opts?.ttlSeconds;
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && ttl > 0)) {
    throw new Error(`Expected ttlSeconds to be a positive integer, got ${show(ttl)}`);
  }
  return ttl;
}

export function assertCount(name: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    throw new Error(`Expected ${name} to be a non-negative integer, got ${show(value)}`);
  }
  return value;
}

/** How much one consume adds: at least 1, since a consume of nothing would be a read. */
export function assertAmount(value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) {
    throw new Error(`Expected amount to be a whole number of at least 1, got ${show(value)}`);
  }
  return value;
}

export function assertEpochMs(name: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new Error(`Expected ${name} to be epoch milliseconds, got ${show(value)}`);
  }
  return value;
}

export function assertLease(leaseMs: number): number {
  if (!(Number.isSafeInteger(leaseMs) && leaseMs > 0)) {
    throw new Error(`Expected leaseMs to be a positive integer, got ${show(leaseMs)}`);
  }
  return leaseMs;
}

export function assertQueueId(id: string): string {
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_KEY_LENGTH) {
    throw new Error(`Expected a queue id of 1..${MAX_KEY_LENGTH} characters, got ${show(id)}`);
  }
  return id;
}

/** JSON text of a value, refusing what JSON cannot carry (undefined, functions, symbols). */
export function toJson(key: string, value: unknown): string {
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined) {
    throw new Error(`Expected a JSON value for ${show(key)}, got ${typeof value}`);
  }
  return json;
}

/** The counter held in JSON text, or a thrown error when the key holds something else. */
export function toCount(key: string, json: string): number {
  const value: unknown = JSON.parse(json);
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
    throw new Error(`Expected ${show(key)} to hold a counter, found ${json.slice(0, 80)}`);
  }
  return value;
}

function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
