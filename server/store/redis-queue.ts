import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { assertEpochMs, assertLease, assertQueueId, queueKey } from "./keys.ts";
import {
  QUEUE_ACK,
  QUEUE_CLAIM,
  QUEUE_DEFER,
  QUEUE_EXTEND,
  QUEUE_PUSH,
  QUEUE_REQUEUE,
  runScript,
} from "./redis-script.ts";
import type { WorkQueue } from "./types.ts";

/**
 * A WorkQueue in five Redis keys: a list of pending ids, a sorted set of in-flight ids by lease end,
 * a hash of lease tokens, a set of every queued id (so a push of a queued id is refused, unless it brings a delayed id forward) and a sorted
 * set of delayed ids by the time they come due, moved to the list by claims. Each
 * operation is one script, atomic across processes.
 */
export function createRedisQueue(client: Redis, name: string, redisKey: (key: string) => string): WorkQueue {
  const members = redisKey(queueKey(name, "members"));
  const pending = redisKey(queueKey(name, "pending"));
  const inflight = redisKey(queueKey(name, "inflight"));
  const tokens = redisKey(queueKey(name, "tokens"));
  const delayed = redisKey(queueKey(name, "delayed"));

  return {
    async push(id, opts) {
      const notBefore = opts?.notBefore === undefined ? 0 : assertEpochMs("notBefore", opts.notBefore);
      const args = [assertQueueId(id), notBefore];
      return (await runScript(client, QUEUE_PUSH, [members, pending, delayed], args)) === 1;
    },
    async claim(leaseMs) {
      const token = randomUUID();
      const reply = await runScript(
        client,
        QUEUE_CLAIM,
        [pending, inflight, tokens, delayed],
        [assertLease(leaseMs), token],
      );
      if (reply === null) {
        return null;
      }
      const [id, leaseUntil] = reply as [string, number];
      return { id, token, leaseUntil };
    },
    async ack(claim) {
      return (await runScript(client, QUEUE_ACK, [inflight, tokens, members], [claim.id, claim.token])) === 1;
    },
    async defer(claim, notBefore) {
      const args = [claim.id, claim.token, assertEpochMs("notBefore", notBefore)];
      return (await runScript(client, QUEUE_DEFER, [inflight, tokens, delayed], args)) === 1;
    },
    async extend(claim, leaseMs) {
      const args = [claim.id, claim.token, assertLease(leaseMs)];
      const leaseUntil = (await runScript(client, QUEUE_EXTEND, [inflight, tokens], args)) as number;
      return leaseUntil === 0 ? null : { ...claim, leaseUntil };
    },
    async requeueExpired() {
      return (await runScript(client, QUEUE_REQUEUE, [inflight, tokens, pending], [])) as string[];
    },
    async size() {
      const [pendingCount, delayedCount, inFlightCount] = await Promise.all([
        client.llen(pending),
        client.zcard(delayed),
        client.zcard(inflight),
      ]);
      return { pending: pendingCount + delayedCount, inFlight: inFlightCount };
    },
  };
}
