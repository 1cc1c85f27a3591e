import { randomUUID } from "node:crypto";
import { assertLease, assertQueueId } from "./keys.ts";
import type { Claim, WorkQueue } from "./types.ts";

interface Lease {
  id: string;
  token: string;
  leaseUntil: number;
}

/** The whole queue is one record, so every move between pending and in flight is one atomic write. */
interface QueueRecord {
  pending: string[];
  inflight: Lease[];
}

export interface LocalQueueAccess {
  clock: () => number;
  /** The record's JSON text as of now (synchronous: read, change and write happen in one turn). */
  read(): string | null;
  /** Replaces the record in memory at once; resolves when it is durable. */
  write(json: string): Promise<void>;
  /** Resolves when the record's pending write, if any, is durable. */
  settled(): Promise<void>;
}

/**
 * A WorkQueue over one record of the memory or file store. Each operation reads, changes and writes
 * the record without yielding, so operations are atomic in the process; cost is linear in the queue
 * length, which suits queues of hundreds or thousands of ids.
 */
export function createLocalQueue(access: LocalQueueAccess): WorkQueue {
  const load = (): QueueRecord => {
    const json = access.read();
    return json === null ? { pending: [], inflight: [] } : (JSON.parse(json) as QueueRecord);
  };
  const save = (record: QueueRecord): Promise<void> => access.write(JSON.stringify(record));
  const holds = (record: QueueRecord, claim: Claim): Lease | undefined =>
    record.inflight.find((lease) => lease.id === claim.id && lease.token === claim.token);

  return {
    async push(id) {
      assertQueueId(id);
      const record = load();
      if (record.pending.includes(id) || record.inflight.some((lease) => lease.id === id)) {
        await access.settled();
        return false;
      }
      record.pending.push(id);
      await save(record);
      return true;
    },
    async claim(leaseMs) {
      assertLease(leaseMs);
      const record = load();
      const id = record.pending.shift();
      if (id === undefined) {
        await access.settled();
        return null;
      }
      const lease: Lease = { id, token: randomUUID(), leaseUntil: access.clock() + leaseMs };
      record.inflight.push(lease);
      await save(record);
      return { ...lease };
    },
    async ack(claim) {
      const record = load();
      const lease = holds(record, claim);
      if (!lease) {
        await access.settled();
        return false;
      }
      record.inflight = record.inflight.filter((other) => other !== lease);
      await save(record);
      return true;
    },
    async extend(claim, leaseMs) {
      assertLease(leaseMs);
      const record = load();
      const lease = holds(record, claim);
      if (!lease) {
        await access.settled();
        return null;
      }
      lease.leaseUntil = access.clock() + leaseMs;
      await save(record);
      return { ...lease };
    },
    async requeueExpired() {
      const record = load();
      const now = access.clock();
      const expired = record.inflight
        .filter((lease) => lease.leaseUntil <= now)
        .sort((a, b) => a.leaseUntil - b.leaseUntil);
      if (expired.length === 0) {
        await access.settled();
        return [];
      }
      record.inflight = record.inflight.filter((lease) => lease.leaseUntil > now);
      const ids = expired.map((lease) => lease.id);
      record.pending.unshift(...ids);
      await save(record);
      return ids;
    },
    async size() {
      const record = load();
      await access.settled();
      return { pending: record.pending.length, inFlight: record.inflight.length };
    },
  };
}
