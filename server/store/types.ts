/** Options of a write. TTLs are whole seconds because Redis `SET EX` takes whole seconds. */
export interface SetOptions {
  ttlSeconds?: number;
}

export interface ConsumeResult {
  allowed: boolean;
  count: number;
}

/** An item handed to one worker until `leaseUntil` (epoch ms); the token proves the lease on ack. */
export interface Claim {
  id: string;
  token: string;
  leaseUntil: number;
}

export interface PushOptions {
  /** Not claimed before this time (epoch ms): a delayed retry. Due ids come after immediate ones. */
  notBefore?: number;
}

/**
 * A durable FIFO of ids. `claim` moves the oldest id to the in-flight set with a lease; `ack` removes
 * it for good; `requeueExpired` puts ids whose lease passed back at the head (crash recovery). An id
 * is never lost and never held by two leases at once; a worker that outlives its lease loses it
 * (`ack` and `extend` then answer false / null), so work must be idempotent or extend its lease.
 */
export interface WorkQueue {
  /**
   * Appends `id`. An id already pending but due later than this push asks is brought forward to it
   * (a manual retry of a delivery whose scheduled retry is minutes away): it then goes after the ids
   * already due, as a new push would. False (and no change) when the id is in flight, or pending and
   * due no later than asked.
   */
  push(id: string, opts?: PushOptions): Promise<boolean>;
  claim(leaseMs: number): Promise<Claim | null>;
  /** Removes a claimed id; false when the claim no longer holds the lease. */
  ack(claim: Claim): Promise<boolean>;
  /**
   * Gives a claimed id back to be claimed again no earlier than `notBefore` (epoch ms): a retry later,
   * in one step, so the id is never out of the queue between a failed attempt and the next one.
   * False when the claim no longer holds the lease.
   */
  defer(claim: Claim, notBefore: number): Promise<boolean>;
  /** Renews a lease to `leaseMs` from now; null when the claim no longer holds the lease. */
  extend(claim: Claim, leaseMs: number): Promise<Claim | null>;
  /** Moves every in-flight id whose lease passed back to the head of the queue; returns them. */
  requeueExpired(): Promise<string[]>;
  size(): Promise<{ pending: number; inFlight: number }>;
}

/** A record written with a claim (see `setIfAbsentWith`), only if absent. */
export interface RecordWrite {
  key: string;
  value: unknown;
  ttlSeconds?: number;
}

/** What `setIfAbsentWith` writes beside its key: records, and ids pushed onto queues (at once). */
export interface WritesWith {
  records?: readonly RecordWrite[];
  pushes?: readonly { queue: string; id: string }[];
}

export type StoreKind = "memory" | "sqlite" | "redis";

/**
 * Key-value state. Keys are lowercase segments joined by ":" (see keys.ts); values are JSON.
 * Invalid keys and arguments throw: they are bugs, not input.
 *
 * A write (records, counters, sequences, set-if-absent, queue moves) is visible to reads, of this
 * connection as of any other, only once its promise resolves; before that no read may count on it
 * (on SQLite the writes asked for in one turn of the event loop are committed together at its end).
 * The writes of one connection apply in the order they were called.
 */
export interface Store {
  readonly kind: StoreKind;
  getItem<T>(key: string): Promise<T | null>;
  /**
   * The values of `keys`, in their order, null where absent or expired: `getItem` of each, in one read
   * of the store (one statement on SQLite, one MGET on Redis), for work that reads many records at once.
   */
  getItems<T>(keys: readonly string[]): Promise<(T | null)[]>;
  setItem(key: string, value: unknown, opts?: SetOptions): Promise<void>;
  removeItem(key: string): Promise<void>;
  /** Keys below `prefix` (segment-wise: "usage" lists "usage:..."), sorted; "" lists all. */
  getKeys(prefix: string): Promise<string[]>;
  /**
   * Removes the record `prefix` and every record below it (segment-wise, as `getKeys`), counters
   * included; returns how many there were. For erasing a whole subject at once (a reader's profile):
   * one statement on SQLite, one deletion of the listed keys on Redis. `prefix` must be a key, not "".
   */
  removeBelow(prefix: string): Promise<number>;
  /**
   * Adds `amount` (default 1) to the counter `key` unless that would take it past `limit`: all of it
   * or nothing, so a batch is never half spent. Returns whether it did and the count after. The
   * counter expires at `expiresAt` (epoch ms), set when the counter is created: windows are fixed,
   * computed by the caller.
   */
  consume(key: string, limit: number, expiresAt: number, amount?: number): Promise<ConsumeResult>;
  /** Current counter value (0 if absent or expired). */
  peek(key: string): Promise<number>;
  /**
   * Next value of a named sequence: 1, 2, 3, ... never repeated, also across processes on Redis,
   * and never going back after a crash.
   */
  next(sequence: string): Promise<number>;
  /** Sets key to value only when it does not exist (or has expired); returns true when set. */
  setIfAbsent(key: string, value: unknown, opts?: SetOptions): Promise<boolean>;
  /**
   * `setIfAbsent`, and when it sets `key`, the records of `also` (each only if absent) and its queue
   * pushes (as `queue(name).push(id)`), in one transaction: a process that dies at any point leaves
   * all of them or none. Returns whether `key` was set.
   */
  setIfAbsentWith(key: string, value: unknown, also: WritesWith, opts?: SetOptions): Promise<boolean>;
  queue(name: string): WorkQueue;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
