import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSubmission, type SubmissionRecord } from "../../../pipeline/domain/submission.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";
import { processSubmission } from "../../../server/submissions/process-submission.ts";
import {
  openKey,
  recordKey,
  SUBMISSION_QUEUE,
  type SubmissionScorer,
} from "../../../server/submissions/submission-records.ts";
import {
  createSubmissionService,
  type SubmissionService,
} from "../../../server/submissions/submission-service.ts";
import {
  DEFAULT_SUBMISSION_SETTINGS,
  type SubmissionSettings,
} from "../../../server/submissions/submission-settings.ts";
import { createSubmissionWorker } from "../../../server/submissions/submission-worker.ts";
import { ABOUT_PAGE, fixedScores, type PageServer, SUBMISSION, startPageServer, waitFor } from "./helpers.ts";

let pages: PageServer;
/** Requests to /hold wait until the test lets them through. */
const held: Array<() => void> = [];
beforeAll(async () => {
  pages = await startPageServer((req, res) => {
    const send = () => res.writeHead(200, { "content-type": "text/html" }).end(ABOUT_PAGE);
    if (req.url === "/hold") held.push(send);
    else send();
  });
});
afterAll(() => pages.close());

const releaseHeld = () => {
  for (const send of held.splice(0)) send();
};

interface Rig {
  store: Store;
  service: SubmissionService;
  logs: string[];
  scored: number[];
}

/** A service over `store` whose scorer counts its calls per submission. */
function rig(store: Store, settings: Partial<SubmissionSettings> = {}): Rig {
  const logs: string[] = [];
  const scored: number[] = [];
  const score: SubmissionScorer = async (candidate) => {
    scored.push(Number(candidate.id.replace("submission-", "")));
    return fixedScores([3, 3, 3, 2, 2, 2, 1, 1, 1]);
  };
  const service = createSubmissionService(
    { store, now: Date.now, log: (message) => logs.push(message) },
    { settings: { allowLoopbackFetch: true, pollIntervalMs: 25, ...settings }, score },
  );
  return { store, service, logs, scored };
}

const input = (path = "/about") => ({ ...SUBMISSION, url: `${pages.url}${path}` });
const record = (store: Store, id: number) => store.getItem<SubmissionRecord>(recordKey(id));
const finished = async (store: Store, id: number) => {
  const found = await record(store, id);
  return found && (found.status === "scored" || found.status === "failed") ? found : null;
};

describe("the submission worker", () => {
  it("scores each submission exactly once with two workers on one store, and empties the queue", async () => {
    const store = await createMemoryStore();
    const a = rig(store, { concurrency: 3 });
    const b = rig(store, { concurrency: 3 });
    const workers = [createSubmissionWorker(a.service), createSubmissionWorker(b.service)];
    await Promise.all(workers.map((worker) => worker.start()));
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await (i % 2 ? a : b).service.submit(input())).id);
    for (const id of ids) await waitFor(() => finished(store, id), 10_000, `submission ${id}`);
    await Promise.all(workers.map((worker) => worker.stop()));
    expect([...a.scored, ...b.scored].sort((x, y) => x - y)).toEqual(ids);
    for (const id of ids)
      expect((await record(store, id))?.history.filter((s) => s.status === "scored")).toHaveLength(1);
    expect(await store.queue(SUBMISSION_QUEUE).size()).toEqual({ pending: 0, inFlight: 0 });
    expect(await store.getKeys("submission-open")).toEqual([]);
    expect((await a.service.leaderboard(100)).total).toBe(12);
  });

  it("never records two outcomes when two workers run the same submission at once", async () => {
    const store = await createMemoryStore();
    const one = rig(store);
    const { id } = await one.service.submit(input());
    const control = { signal: new AbortController().signal, holds: async () => true };
    const outcomes = await Promise.all([
      processSubmission(one.service.deps, id, control),
      processSubmission(one.service.deps, id, control),
    ]);
    expect(outcomes).toEqual(["finished", "finished"]);
    expect(one.logs.filter((line) => line === `submission ${id} scored: total 18`)).toHaveLength(1);
    const final = await record(store, id);
    expect(final?.status).toBe("scored");
    expect(final?.history.filter((step) => step.status === "scored")).toHaveLength(1);
    expect((await one.service.leaderboard(10)).total).toBe(1);
  });

  it("picks up a submission whose worker died holding it, once the lease runs out", async () => {
    const store = await createMemoryStore();
    const first = rig(store, { leaseMs: 300 });
    const { id } = await first.service.submit(input());
    // A worker that claims, starts fetching and dies: the record says fetching, the lease runs out.
    const claim = await store.queue(SUBMISSION_QUEUE).claim(300);
    expect(claim?.id).toBe(String(id));
    const stuck = await record(store, id);
    await store.setItem(recordKey(id), { ...stuck, status: "fetching", attempts: 1 });

    const second = rig(store, { leaseMs: 300 });
    const worker = createSubmissionWorker(second.service);
    await worker.start();
    const done = await waitFor(() => finished(store, id), 5_000);
    await worker.stop();
    expect(done).toMatchObject({ status: "scored", attempts: 2 });
    expect(second.scored).toEqual([id]);
  });

  it("finds an accepted submission that never reached the queue (crash before the push)", async () => {
    const store = await createMemoryStore();
    const one = rig(store);
    const orphan = newSubmission(41, input(), new Date().toISOString());
    await store.setItem(openKey(41), 1);
    await store.setItem(recordKey(41), orphan);
    await store.setItem(openKey(42), 1); // marked but its record was never written
    const worker = createSubmissionWorker(one.service);
    await worker.start();
    await waitFor(() => finished(store, 41), 5_000);
    await waitFor(async () => ((await store.getKeys("submission-open")).length === 0 ? true : null), 5_000);
    await worker.stop();
    expect(one.scored).toEqual([41]);
  });

  it("fails a submission that keeps interrupting its worker, instead of trying for ever", async () => {
    const store = await createMemoryStore();
    const one = rig(store);
    const { id } = await one.service.submit(input());
    const tired = await record(store, id);
    await store.setItem(recordKey(id), { ...tired, attempts: DEFAULT_SUBMISSION_SETTINGS.maxAttempts });
    const worker = createSubmissionWorker(one.service);
    await worker.start();
    const done = await waitFor(() => finished(store, id), 5_000);
    await worker.stop();
    expect(done).toMatchObject({ status: "failed", failure: { code: "gave_up" } });
    expect(one.scored).toEqual([]);
  });

  it("finishes the submission in hand when stopped, and takes no new one", async () => {
    const store = await createMemoryStore();
    const one = rig(store, { concurrency: 1 });
    const worker = createSubmissionWorker(one.service);
    await worker.start();
    const inHand = await one.service.submit(input("/hold"));
    const waiting = await one.service.submit(input());
    await waitFor(async () => (held.length > 0 ? true : null), 5_000, "the page request");
    const stopped = worker.stop();
    setTimeout(releaseHeld, 200);
    await stopped;
    expect((await record(store, inHand.id))?.status).toBe("scored");
    expect((await record(store, waiting.id))?.status).toBe("queued");
    expect(await store.queue(SUBMISSION_QUEUE).size()).toEqual({ pending: 1, inFlight: 0 });
  });

  it("lets go of a submission whose lease it lost, writing nothing more", async () => {
    let offset = 0;
    const store = await createMemoryStore({ clock: () => Date.now() + offset });
    const one = rig(store, { leaseMs: 300 });
    const { id } = await one.service.submit(input("/hold"));
    const worker = createSubmissionWorker(one.service);
    await worker.start();
    await waitFor(async () => (held.length > 0 ? true : null), 5_000, "the page request");
    // The worker stalls past its lease and another process takes the submission over: clock jump,
    // requeue and claim in one turn, so no renewal can slip in between.
    offset = 10_000;
    const queue = store.queue(SUBMISSION_QUEUE);
    const [requeued, other] = await Promise.all([queue.requeueExpired(), queue.claim(60_000)]);
    expect(requeued).toEqual([String(id)]);
    expect(other?.id).toBe(String(id));
    const started = Date.now();
    await worker.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    releaseHeld();
    expect(await record(store, id)).toMatchObject({ status: "fetching", attempts: 1 });
    expect(one.scored).toEqual([]);
    expect(await queue.ack(other as NonNullable<typeof other>)).toBe(true);
  });
});
