import { setImmediate as tick } from "node:timers/promises";
import { afterEach, expect, it } from "vitest";
import { createQueueWorker, type QueueWorker } from "../../../server/store/queue-worker.ts";
import type { Claim, WorkQueue } from "../../../server/store/types.ts";

interface AskedClaim {
  resolve: (claim: Claim | null) => void;
  reject: (error: Error) => void;
  answered: boolean;
}

/** A WorkQueue whose claims wait until the test answers them; nothing else of it is used. */
function fakeQueue() {
  const claims: AskedClaim[] = [];
  const unused = async (): Promise<never> => {
    throw new Error("Expected the worker to only claim");
  };
  const queue: WorkQueue = {
    claim: () =>
      new Promise<Claim | null>((resolve, reject) => {
        const asked: AskedClaim = {
          resolve: (claim) => {
            asked.answered = true;
            resolve(claim);
          },
          reject: (error) => {
            asked.answered = true;
            reject(error);
          },
          answered: false,
        };
        claims.push(asked);
      }),
    push: unused,
    ack: unused,
    defer: unused,
    extend: unused,
    requeueExpired: unused,
    size: unused,
  };
  return { queue, claims };
}

const claimOf = (id: string): Claim => ({ id, token: `token-${id}`, leaseUntil: Date.now() + 60_000 });

let worker: QueueWorker | undefined;
let finishWork: () => void = () => {};
let claims: AskedClaim[] = [];
afterEach(async () => {
  const stopped = worker?.stop();
  finishWork();
  for (const claim of claims) if (!claim.answered) claim.resolve(null);
  await stopped;
  worker = undefined;
});

function startWorker(concurrency: number) {
  const fake = fakeQueue();
  claims = fake.claims;
  const worked: string[] = [];
  const logged: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  finishWork = release;
  worker = createQueueWorker({
    queue: fake.queue,
    concurrency,
    leaseMs: 60_000,
    pollIntervalMs: 60_000,
    onQueued: () => () => {},
    log: (message) => logged.push(message),
    // Holds its slot until the test ends.
    work: async (claim) => {
      worked.push(claim.id);
      await released;
    },
  });
  void worker.start();
  return { claims: fake.claims, worked, logged, worker };
}

it("claims every free slot at once, each claim asked before any is answered", async () => {
  const { claims, worked } = startWorker(4);
  await tick();
  // The first look knows nothing of the queue yet: one claim.
  expect(claims).toHaveLength(1);
  claims[0]?.resolve(claimOf("a"));
  await tick();
  expect(claims).toHaveLength(4);
  expect(claims.slice(1).map((claim) => claim.answered)).toEqual([false, false, false]);
  for (const [index, claim] of claims.slice(1).entries()) claim.resolve(claimOf(`b${index}`));
  await tick();
  expect(worked).toEqual(["a", "b0", "b1", "b2"]);
  // Every slot busy: no further claim.
  expect(claims).toHaveLength(4);
});

it("claims one after a look that found the queue empty, then every free slot once it finds work", async () => {
  const { claims, worked, worker } = startWorker(4);
  await tick();
  claims[0]?.resolve(null);
  await tick();
  expect(claims).toHaveLength(1);
  // Four free slots, but the last look found nothing: one claim.
  worker.wake();
  await tick();
  expect(claims).toHaveLength(2);
  claims[1]?.resolve(claimOf("a"));
  await tick();
  expect(claims).toHaveLength(5);
  for (const claim of claims.slice(2)) claim.resolve(null);
  await tick();
  expect(worked).toEqual(["a"]);
  // Those found the queue empty again: the next look is one claim.
  worker.wake();
  await tick();
  expect(claims).toHaveLength(6);
});

it("works on the jobs it claimed when another claim of the same look failed, and logs the failure", async () => {
  const { claims, worked, logged } = startWorker(3);
  await tick();
  claims[0]?.resolve(claimOf("a"));
  await tick();
  expect(claims).toHaveLength(3);
  claims[1]?.reject(new Error("database is locked"));
  claims[2]?.resolve(claimOf("b"));
  await tick();
  expect(worked).toEqual(["a", "b"]);
  expect(logged).toEqual(["database is locked"]);
});
