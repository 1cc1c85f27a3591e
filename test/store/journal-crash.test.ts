import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAtomicFsDriver } from "../../server/store/atomic-fs-driver.ts";
import { createFileStore, loadRecords } from "../../server/store/file-store.ts";
import type { JournalStep } from "../../server/store/journal-compaction.ts";
import { replayJournals } from "../../server/store/journal-replay.ts";
import type { LocalEntry } from "../../server/store/record-envelope.ts";
import { collectLines, spawnFixture } from "./child.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rp-journal-crash-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the children were answered, over all runs: recovery must never fall behind it. */
const answered = {
  hits: 0,
  id: 0,
  once: new Set<string>(),
  round: new Map<number, number>(),
};

/** The state a restart would recover, read without opening the store (which would compact it). */
async function recoveredState(): Promise<Map<string, LocalEntry>> {
  const storage = createStorage({ driver: createAtomicFsDriver({ base: dir, fsync: false }) });
  const entries = await loadRecords(storage);
  await replayJournals(dir, entries);
  return entries;
}

function expectNothingLost(entries: Map<string, LocalEntry>, label: string): void {
  const value = (key: string): unknown => {
    const json = entries.get(key)?.json;
    return json === undefined ? null : JSON.parse(json);
  };
  expect(value("hits"), label).toBeGreaterThanOrEqual(answered.hits);
  expect(value("_seq:ids"), label).toBeGreaterThanOrEqual(answered.id);
  const lost = [...answered.once].filter((key) => !entries.has(key));
  expect(lost, label).toEqual([]);
  for (const [worker, round] of answered.round) {
    const item = value(`item:${worker}`) as { round: number } | null;
    expect(item?.round, `${label}: item:${worker}`).toBeGreaterThanOrEqual(round);
    // Removed after its round was answered: only a later, unanswered round may have brought it back.
    const flip = value(`flip:${worker}`) as number | null;
    expect(flip === null || flip > round, `${label}: flip:${worker} = ${flip}`).toBe(true);
  }
}

// Every point between two steps of rotation and compaction, some of them more than once per run, so
// that a kill also lands in the compaction at open (of the journals the previous run left) and in a
// compaction of several journals; then kills at random instants, in the middle of writes.
const crashes: Array<{ step: JournalStep | "-"; nth: number }> = [
  ...(["rotated", "record-written", "records-written", "journal-removed"] as const).flatMap((step) =>
    [1, 2, 5].map((nth) => ({ step, nth })),
  ),
  ...Array.from({ length: 6 }, () => ({ step: "-" as const, nth: 0 })),
];

describe("file store journal under SIGKILL", () => {
  it("never loses an answered change nor tears a file, whatever step a kill interrupts", async () => {
    for (const [run, { step, nth }] of crashes.entries()) {
      const label = `run ${run}: kill at ${step === "-" ? "a random instant" : `${step} #${nth}`}`;
      const child = spawnFixture("journal-crash.ts", [dir, String(run), step, String(nth)]);
      let lines = 0;
      let killedByParent = false;
      const killAfter = 50 + Math.floor(Math.random() * 400);
      const exited = collectLines(child, (line) => {
        const [hits = 0, id = 0, worker = 0, round = 0] = line.split(" ").map(Number);
        const once = line.split(" ")[4];
        answered.hits = Math.max(answered.hits, hits);
        answered.id = Math.max(answered.id, id);
        if (once) {
          answered.once.add(once);
        }
        answered.round.set(worker, Math.max(answered.round.get(worker) ?? 0, round));
        // The parent's own kill: the only one in random runs, a fallback when a step never comes.
        if (++lines === (step === "-" ? killAfter : 10_000)) {
          killedByParent = true;
          setTimeout(() => child.kill("SIGKILL"), Math.random() * 10);
        }
      });
      const { signal, stderr } = await exited;
      expect(
        step === "-" || !killedByParent,
        `${label}: the step never came in ${lines} lines; ${stderr}`,
      ).toBe(true);
      expect(signal, `${label}: ${stderr}`).toBe("SIGKILL");

      for (const name of (await readdir(dir)).filter((file) => file.endsWith(".json"))) {
        const text = await readFile(join(dir, name), "utf8");
        expect(() => JSON.parse(text), `${label}: ${name} is torn: ${text.slice(0, 60)}`).not.toThrow();
      }
      expectNothingLost(await recoveredState(), label);
    }

    const store = await createFileStore({ dir });
    expect(await store.peek("hits")).toBeGreaterThanOrEqual(answered.hits);
    expect(await store.next("ids")).toBeGreaterThan(answered.id);
    await store.close();
    expect((await readdir(dir)).filter((name) => name.startsWith(".journal-"))).toEqual([]);
    expectNothingLost(await recoveredState(), "after a clean close");
  }, 120_000);
});
