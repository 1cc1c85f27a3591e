// What Bench-as-a-Service adds to `picks curate`, and what a weekly note costs:
// `node --import tsx bench/firm-views.ts [firms]`.
// A 300-candidate day (the recorded 250-unique listing, the 26-row partial day and sample candidates to
// make up 300), curated for real; then every firm's view of it written to the embedded SQLite store, as
// `picks curate` does after publishing. Each firm has a 200-paper, 100-author, 100-term watchlist and a
// 50-signal rubric, the limits' scale. The watched papers' citation batch is one request to the index,
// left out here (it depends on the index, not on this code). Then one firm's weekly note over five days.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { curate } from "../pipeline/curate.ts";
import { noteHtml, noteMarkdown } from "../pipeline/domain/bench-note-render.ts";
import { DEFAULT_FIRM_RUBRIC } from "../pipeline/domain/bench-rubric.ts";
import { type CandidateText, firmDays } from "../pipeline/domain/bench-scoring.ts";
import { addDays } from "../pipeline/domain/calendar.ts";
import type { Candidate } from "../pipeline/domain/candidate.ts";
import { DEFAULT_SELECTION } from "../pipeline/domain/selection.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { createSampleSource, sampleDays } from "../pipeline/sources/sample-source.ts";
import { createKeyService } from "../server/access/key-service.ts";
import { createBenchStore } from "../server/bench/bench-store.ts";
import { buildFirmViews } from "../server/bench/firm-views.ts";
import { composeNote } from "../server/bench/weekly-note.ts";
import { createSqliteStore } from "../server/store/sqlite-store.ts";
import { LISTING_250, LISTING_PARTIAL, readListing } from "../test/helpers/fixtures.ts";

const FIRMS = Number(process.argv[2] ?? 10);
// `phrases` (default): watch terms are two-word phrases from the day's titles, as a firm would watch
// "model risk"; `words`: single common title words, which hit nearly every candidate (the worst case).
const TERMS = process.argv[3] === "words" ? "words" : "phrases";
const DAY = "2026-11-16"; // a Monday: five weekdays of W47 follow
const RUNS = 7;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "picks-bench-firms-"));
  const sample = createSampleSource();
  const extra = (await sample.load((await sampleDays())[0] as string)).candidates;
  const seen = new Set<string>();
  const candidates: Candidate[] = [...readListing(LISTING_250), ...readListing(LISTING_PARTIAL), ...extra]
    .filter((c) => !seen.has(c.id) && seen.add(c.id))
    .slice(0, 300);
  const rubric = await loadRubric();
  const curateStart = performance.now();
  const result = await curate({
    date: DAY,
    source: {
      name: "bench",
      load: async () => ({ source: "bench", sample: false, candidates, skipped: [], duplicates: 0 }),
    },
    outDir: join(dir, "public"),
    runsDir: join(dir, "runs"),
    rubric,
    selection: DEFAULT_SELECTION,
    now: () => new Date(`${DAY}T06:00:00Z`),
  });
  const curateMs = performance.now() - curateStart;

  const store = await createSqliteStore({ path: join(dir, "picks.db") });
  const keys = createKeyService({ store });
  const bench = createBenchStore(store, keys);
  const words = candidates.flatMap((c) => c.title.split(/\s+/)).filter((w) => /^[a-z]{6,}$/i.test(w));
  const authors = [...new Set(candidates.flatMap((c) => c.authors))];
  const phrases = candidates.flatMap((c) => {
    const titleWords = c.title.split(/\s+/).filter((w) => /^[a-z]{4,}$/i.test(w));
    return titleWords.slice(1).map((w, i) => `${titleWords[i]} ${w}`);
  });
  for (let f = 0; f < FIRMS; f++) {
    const firm = `firm-${f}`;
    await keys.issue({ tier: "bench", email: "ops@example.org", label: "bench", firm });
    await bench.setWatchlist(firm, {
      papers: candidates.slice(f, f + 200).map((c) => c.id),
      authors: authors.slice(f * 7, f * 7 + 100),
      terms: [...new Set((TERMS === "words" ? words : phrases).slice(f * 11, f * 11 + 400))].slice(0, 100),
      updated_at: "2026-11-16T00:00:00Z",
    });
    await bench.addRubric(firm, (version) => ({
      version,
      created_at: "2026-11-16T00:00:00Z",
      weights: { A1: 1, A2: 1, A3: (f % 4) as number, A4: 2, A5: 1, A6: 3, A7: 1, A8: 1, A9: 0.5 },
      signals: Array.from({ length: 50 }, (_, i) => ({
        axis: (["A4", "A5", "A6"] as const)[i % 3] ?? "A6",
        terms: [
          words[(f * 50 + i) % words.length] as string,
          words[(f * 50 + i + 7) % words.length] as string,
        ],
        weight: 1 + (i % 3),
      })),
      min_total: 20,
      min_reg_fit: 2,
      max_picks: 6,
    }));
  }
  const texts = new Map<string, CandidateText>(
    candidates.map((c) => [c.id, { summary: c.summary, authors: c.authors, comment: c.comment }]),
  );

  const viewMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const date = addDays(DAY, run % 5);
    const start = performance.now();
    await buildFirmViews({ bench, record: { ...result.record, date }, texts });
    viewMs.push(performance.now() - start);
  }
  // The pure part alone, without the store: where the time goes.
  const setups = await Promise.all(
    Array.from({ length: FIRMS }, async (_, f) => ({
      watchlist: await bench.watchlist(`firm-${f}`),
      rubric: (await bench.currentRubric(`firm-${f}`)) ?? DEFAULT_FIRM_RUBRIC,
    })),
  );
  const pureMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    firmDays({
      date: DAY,
      publicRubricVersion: result.record.rubric_version,
      screened: result.record.candidates,
      texts,
      firms: setups,
    });
    pureMs.push(performance.now() - start);
  }
  const noteMs: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const note = await composeNote(bench, "firm-0", "2026-W47", new Date());
    if (!note) throw new Error("no note");
    const text = noteMarkdown(note) + noteHtml(note);
    noteMs.push(performance.now() - start);
    bytes = text.length;
  }
  const views = await bench.days("firm-0", DAY, addDays(DAY, 6));
  console.log(
    `day: ${candidates.length} candidates (${result.record.counts.screened} screened); curate itself ${curateMs.toFixed(0)} ms`,
  );
  console.log(
    `firm views, ${FIRMS} firms: median ${median(viewMs).toFixed(0)} ms, first ${viewMs[0]?.toFixed(0)} ms, max ${Math.max(...viewMs).toFixed(0)} ms of ${RUNS} (target < 1000 ms)`,
  );
  console.log(`  of which scoring and matching (pure): median ${median(pureMs).toFixed(0)} ms`);
  console.log(
    `weekly note, ${views.length} days, ${views.reduce((n, v) => n + v.picks.length + v.hits.length, 0)} picks+hits, Markdown+HTML ${bytes} chars: median ${median(noteMs).toFixed(1)} ms, max ${Math.max(...noteMs).toFixed(1)} ms (target < 200 ms)`,
  );
  await store.close();
  await rm(dir, { recursive: true, force: true });
}

await main();
