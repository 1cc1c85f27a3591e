import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

export interface RedisScript {
  lua: string;
  sha: string;
}

function defineScript(lua: string): RedisScript {
  return { lua, sha: createHash("sha1").update(lua).digest("hex") };
}

/**
 * One round trip: EVALSHA, and EVAL only when the server lost its script cache (a restart or
 * SCRIPT FLUSH), which also caches the script again.
 */
export async function runScript(
  client: Redis,
  script: RedisScript,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) {
      throw error;
    }
    return client.eval(script.lua, keys.length, ...keys, ...args);
  }
}

/** Loads scripts ahead, so that the first call of each is one round trip too. */
export async function loadScripts(client: Redis, scripts: RedisScript[]): Promise<void> {
  await Promise.all(scripts.map((script) => client.script("LOAD", script.lua)));
}

// Redis has no "increment below a limit"; INCR then DECR would let a concurrent reader see an
// overshoot, so the checks and the increment run in one script. ARGV: limit, expiresAt, then the
// amounts of the consumes joined (joined-consumes.ts), each allowed or refused in turn as if alone.
// Returns allowed (1 or 0) and count for each.
export const CONSUME = defineScript(`
local start = tonumber(redis.call("GET", KEYS[1]) or "0")
local limit = tonumber(ARGV[1])
local count = start
local answers = {}
for i = 3, #ARGV do
  local amount = tonumber(ARGV[i])
  if count + amount > limit then
    answers[#answers + 1] = 0
  else
    count = count + amount
    answers[#answers + 1] = 1
  end
  answers[#answers + 1] = count
end
if count > start then
  redis.call("INCRBY", KEYS[1], count - start)
  if start == 0 then
    redis.call("PEXPIREAT", KEYS[1], ARGV[2])
  end
end
return answers
`);

// The queue's clock is the Redis server's, shared by every process, so leases do not depend on the
// clocks of the machines that claim them.
const NOW = `local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: members, pending, delayed. ARGV: id, notBefore (epoch ms; 0 = at once). A queued id is
 * pushed again only when it is delayed past notBefore: it is then brought forward (a manual retry).
 */
export const QUEUE_PUSH = defineScript(`
if redis.call("SADD", KEYS[1], ARGV[1]) == 0 then
  local due = redis.call("ZSCORE", KEYS[3], ARGV[1])
  if not due or tonumber(due) <= tonumber(ARGV[2]) then
    return 0
  end
  redis.call("ZREM", KEYS[3], ARGV[1])
end
if tonumber(ARGV[2]) > 0 then
  redis.call("ZADD", KEYS[3], ARGV[2], ARGV[1])
else
  redis.call("RPUSH", KEYS[2], ARGV[1])
end
return 1
`);

/**
 * KEYS: pending, inflight, tokens, delayed. ARGV: leaseMs, token. Returns {id, leaseUntil} or nil.
 * Delayed ids that came due join the pending list first, earliest first, so a claim sees them.
 */
export const QUEUE_CLAIM = defineScript(`
${NOW}
local due = redis.call("ZRANGEBYSCORE", KEYS[4], "-inf", now, "LIMIT", 0, 100)
for i = 1, #due do
  redis.call("ZREM", KEYS[4], due[i])
  redis.call("RPUSH", KEYS[1], due[i])
end
local id = redis.call("LPOP", KEYS[1])
if not id then
  return false
end
local leaseUntil = now + tonumber(ARGV[1])
redis.call("ZADD", KEYS[2], leaseUntil, id)
redis.call("HSET", KEYS[3], id, ARGV[2])
return {id, leaseUntil}
`);

/** KEYS: inflight, tokens, members. ARGV: id, token. */
export const QUEUE_ACK = defineScript(`
if redis.call("HGET", KEYS[2], ARGV[1]) ~= ARGV[2] then
  return 0
end
redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
redis.call("SREM", KEYS[3], ARGV[1])
return 1
`);

/** KEYS: inflight, tokens, delayed. ARGV: id, token, notBefore. */
export const QUEUE_DEFER = defineScript(`
if redis.call("HGET", KEYS[2], ARGV[1]) ~= ARGV[2] then
  return 0
end
redis.call("ZREM", KEYS[1], ARGV[1])
redis.call("HDEL", KEYS[2], ARGV[1])
redis.call("ZADD", KEYS[3], ARGV[3], ARGV[1])
return 1
`);

/** KEYS: inflight, tokens. ARGV: id, token, leaseMs. Returns the new leaseUntil or 0. */
export const QUEUE_EXTEND = defineScript(`
if redis.call("HGET", KEYS[2], ARGV[1]) ~= ARGV[2] then
  return 0
end
${NOW}
local leaseUntil = now + tonumber(ARGV[3])
redis.call("ZADD", KEYS[1], "XX", leaseUntil, ARGV[1])
return leaseUntil
`);

/** KEYS: inflight, tokens, pending. Returns the requeued ids, earliest lease first. */
export const QUEUE_REQUEUE = defineScript(`
${NOW}
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", now)
for i = #ids, 1, -1 do
  redis.call("ZREM", KEYS[1], ids[i])
  redis.call("HDEL", KEYS[2], ids[i])
  redis.call("LPUSH", KEYS[3], ids[i])
end
return ids
`);

/**
 * KEYS: the claimed key, then one key per record, then members, pending and delayed of each push.
 * ARGV: the number of records, then json and ttl (whole seconds; 0 = none) of the claim and of each
 * record, then the id of each push. Sets the claim only if absent, and then, in the same script, each
 * record only if absent and each push as QUEUE_PUSH does for "now". Returns 1 when the claim was set.
 */
export const SET_IF_ABSENT_WITH = defineScript(`
local function put(key, json, ttl)
  if tonumber(ttl) > 0 then
    return redis.call("SET", key, json, "EX", ttl, "NX")
  end
  return redis.call("SET", key, json, "NX")
end
if not put(KEYS[1], ARGV[2], ARGV[3]) then
  return 0
end
local records = tonumber(ARGV[1])
for i = 1, records do
  put(KEYS[1 + i], ARGV[2 + 2 * i], ARGV[3 + 2 * i])
end
local pushes = (#KEYS - 1 - records) / 3
for i = 1, pushes do
  local members = KEYS[1 + records + 3 * i - 2]
  local pending = KEYS[1 + records + 3 * i - 1]
  local delayed = KEYS[1 + records + 3 * i]
  local id = ARGV[3 + 2 * records + i]
  if redis.call("SADD", members, id) == 1 then
    redis.call("RPUSH", pending, id)
  elseif redis.call("ZSCORE", delayed, id) then
    redis.call("ZREM", delayed, id)
    redis.call("RPUSH", pending, id)
  end
end
return 1
`);

export const ALL_SCRIPTS = [
  SET_IF_ABSENT_WITH,
  CONSUME,
  QUEUE_PUSH,
  QUEUE_CLAIM,
  QUEUE_ACK,
  QUEUE_DEFER,
  QUEUE_EXTEND,
  QUEUE_REQUEUE,
];
