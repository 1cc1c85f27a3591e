import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { assertLease, assertQueueId, queueKey } from "./keys.ts";
import {
  QUEUE_ACK,
  QUEUE_CLAIM,
  QUEUE_EXTEND,
  QUEUE_PUSH,
  QUEUE_REQUEUE,
  runScript,
} from "./redis-script.ts";
import type { WorkQueue } from "./types.ts";

/**
 * A WorkQueue in four Redis keys: a list of pending ids, a sorted set of in-flight ids by lease end,
 * a hash of lease tokens and a set of every queued id (so a push of a queued id is refused). Each
 * operation is one script, atomic across processes.
 */
export function createRedisQueue(client: Redis, name: string, redisKey: (key: string) => string): WorkQueue {
  const members = redisKey(queueKey(name, "members"));
  const pending = redisKey(queueKey(name, "pending"));
  const inflight = redisKey(queueKey(name, "inflight"));
  const tokens = redisKey(queueKey(name, "tokens"));

  return {
    async push(id) {
      return (await runScript(client, QUEUE_PUSH, [members, pending], [assertQueueId(id)])) === 1;
    },
    async claim(leaseMs) {
      const token = randomUUID();
      const reply = await runScript(
        client,
        QUEUE_CLAIM,
        [pending, inflight, tokens],
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
    async extend(claim, leaseMs) {
      const args = [claim.id, claim.token, assertLease(leaseMs)];
      const leaseUntil = (await runScript(client, QUEUE_EXTEND, [inflight, tokens], args)) as number;
      return leaseUntil === 0 ? null : { ...claim, leaseUntil };
    },
    async requeueExpired() {
      return (await runScript(client, QUEUE_REQUEUE, [inflight, tokens, pending], [])) as string[];
    },
    async size() {
      const [pendingCount, inFlightCount] = await Promise.all([client.llen(pending), client.zcard(inflight)]);
      return { pending: pendingCount, inFlight: inFlightCount };
    },
  };
}
