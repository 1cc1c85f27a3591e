import { access, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { curate } from "../../pipeline/curate.ts";
import type { Candidate } from "../../pipeline/domain/candidate.ts";
import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import type { Rubric } from "../../pipeline/domain/rubric.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import type { Scores } from "../../pipeline/domain/score.ts";
import { type ScreenedDay, ScreenedDaySchema } from "../../pipeline/domain/screened.ts";
import { readerReason } from "../../pipeline/domain/screened-reason.ts";
import { RANKED_SELECTION } from "../../pipeline/domain/selection.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { assertValidFile } from "../../pipeline/publish.ts";
import { loadRelevanceModel, newestModelPath } from "../../pipeline/relevance-file.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import type { CandidateScorer } from "../../pipeline/screen.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { LISTING_250, readListing } from "../helpers/fixtures.ts";

let rubric: Rubric;
let ranker: CompiledRelevance;
beforeAll(async () => {
  rubric = await loadRubric();
  ranker = await loadRelevanceModel(await newestModelPath());
});

async function site() {
  const root = await mkdtemp(join(tmpdir(), "picks-screened-"));
  return { outDir: join(root, "public"), runsDir: join(root, "runs") };
}

const curateListing = (dirs: { outDir: string; runsDir: string }, scorer?: CandidateScorer) =>
  curate({
    date: "2026-06-12",
    source: createFileSource(LISTING_250),
    ...dirs,
    rubric,
    selection: RANKED_SELECTION,
    ranker,
    ...(scorer ? { scorer } : {}),
    now: () => new Date("2026-11-21T06:00:00Z"),
  });

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

describe("the screened file of the recorded 250-paper day", () => {
  let screened: ScreenedDay;
  let bytes: Buffer;
  let record: RunRecord;
  let day: DailySnapshot;
  beforeAll(async () => {
    const dirs = await site();
    await curateListing(dirs);
    bytes = await readFile(join(dirs.outDir, "v1", "screened", "2026-06-12.json"));
    screened = ScreenedDaySchema.parse(JSON.parse(bytes.toString("utf8")));
    record = await readJson<RunRecord>(join(dirs.runsDir, "2026-06-12.json"));
    day = await readJson<DailySnapshot>(join(dirs.outDir, "v1", "daily", "2026-06-12.json"));
  });

  it("holds every one of the 250 unique ids once, in the run record's order, ranked 1..250", () => {
    const unique = new Set(readListing(LISTING_250).map((candidate) => candidate.id));
    expect(unique.size).toBe(250);
    const ids = screened.papers.map((paper) => paper.arxiv_id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids)).toEqual(unique);
    expect(ids).toEqual(record.candidates.map((entry) => entry.id));
    expect(screened.papers.map((paper) => paper.rank)).toEqual(ids.map((_, index) => index + 1));
    expect(record.files).toEqual(
      expect.arrayContaining([expect.stringMatching(/v1\/screened\/2026-06-12\.json$/)]),
    );
  });

  it("marks the day's six picks, in the day's order", () => {
    const picked = screened.papers.filter((paper) => paper.picked).map((paper) => paper.arxiv_id);
    expect(day.picks).toHaveLength(6);
    expect(picked).toEqual(day.picks.map((pick) => pick.arxiv_id));
    expect(screened.counts).toEqual({
      screened: 250,
      picked: 6,
      on_topic: screened.papers.filter((paper) => (paper.on_topic ?? 0) >= 0.5).length,
    });
  });

  it("gives each paper the run record's reason in a reader's words, with the record's figures", () => {
    const kinds = new Set<string>();
    screened.papers.forEach((paper, index) => {
      const entry = record.candidates[index];
      if (!entry) throw new Error(`no run record entry for ${paper.arxiv_id}`);
      const reason = readerReason(entry.reason, entry.scores.focus?.level === "off-mission");
      kinds.add(reason.kind);
      expect(reason.kind).not.toBe("other");
      expect(paper.reason).toBe(reason.text);
      expect(paper.picked).toBe(entry.kept);
      expect(reason.kind === "picked").toBe(entry.kept);
      // The figures the record's reason names are the ones the reader reads.
      const figures = entry.reason.match(/\d+/g) ?? [];
      if (reason.kind === "below_reg_fit")
        expect(paper.reason).toContain(`REG FIT ${figures[0]}, needs ${figures[1]}`);
      if (reason.kind === "below_total")
        expect(paper.reason).toContain(`total ${figures[0]}, needs ${figures[1]}`);
      if (reason.kind === "picked") expect(paper.reason).toContain(`rank ${entry.rank}`);
      expect(paper.scores.total).toBe(entry.scores.total);
      expect(paper.scores.reg_fit).toBe(entry.scores.reg_fit.score);
      expect(paper.must_read).toBe(Math.round((entry.relevance?.must_read ?? Number.NaN) * 1000) / 1000);
    });
    // The day has a decision of each kind its selection makes: the model's six best-ranked are picked and
    // no rubric floor turns a paper away (RANKED_SELECTION), so the rest are over the daily maximum.
    expect([...kinds].sort()).toEqual(["over_daily_max", "picked"]);
  });

  it("keeps the texts the listing gave, the abstract cut to its opening", () => {
    const byId = new Map<string, Candidate>(
      readListing(LISTING_250).map((candidate) => [candidate.id, candidate]),
    );
    for (const paper of screened.papers) {
      const candidate = byId.get(paper.arxiv_id) as Candidate;
      expect(paper.title).toBe(candidate.title);
      expect(paper.authors).toEqual(candidate.authors);
      expect(paper.categories).toEqual(candidate.categories);
      const opening = paper.summary.replace(/…$/, "");
      expect(candidate.summary.replace(/\s+/g, " ")).toContain(opening);
      expect(paper.abs_url).toBe(`https://arxiv.org/abs/${paper.arxiv_id}`);
    }
  });

  it("is compact JSON that passes the published JSON Schema, well inside its budget compressed", () => {
    expect(bytes.toString("utf8")).toBe(JSON.stringify(screened));
    expect(() => assertValidFile("screened", screened, "screened")).not.toThrow();
    // 150 KB for 320 candidates: this 250-candidate day at most its share.
    expect(gzipSync(bytes).byteLength).toBeLessThan((150 * 1024 * 250) / 320);
  });
});

describe("a screened file that fails its schema", () => {
  it("stops the run before anything is written: no day, no screened file, no pointer, no record", async () => {
    const dirs = await site();
    // A scorer whose level is out of range on papers the rubric finds off mission, none of them a pick:
    // only the files that carry those papers (the screened file and the run record) can fail, and the
    // screened file is checked first.
    const scorer: CandidateScorer = {
      async score(candidates, context) {
        const scores = candidates.map((candidate): Scores => {
          const rules = context.rules(candidate);
          if (rules.focus?.level !== "off-mission") return rules;
          return { ...rules, axes: { ...rules.axes, A1: { score: 9, evidence: [] } } };
        });
        const usage = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: null };
        return {
          scores,
          run: { scorer: "rules", model: null, llm_scored: 0, cache_hits: 0, fallbacks: [], usage },
        };
      },
    };
    await expect(curateListing(dirs, scorer)).rejects.toThrow(
      /refusing to write .*screened.*2026-06-12\.json/,
    );
    for (const path of [
      join(dirs.outDir, "v1", "daily", "latest.json"),
      join(dirs.outDir, "v1", "daily", "2026-06-12.json"),
      join(dirs.outDir, "v1", "screened", "2026-06-12.json"),
      join(dirs.runsDir, "2026-06-12.json"),
    ]) {
      await expect(access(path)).rejects.toThrow(/ENOENT/);
    }
  });
});
