// `picks eval` as the operator runs it: a real process, labels and listings on disk, the language-model
// judge played by a fake OpenAI-compatible server on loopback.

import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDataBlock } from "../../pipeline/judge/judge-prompt.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { RELEASED_DAYS } from "../helpers/curation.ts";
import { runPicks } from "../helpers/processes.ts";
import {
  completion,
  type FakeModel,
  json,
  type RecordedCall,
  startFakeModel,
} from "../server/verify/fake-model.ts";

/** Without the operator's own model settings, so a run uses only what a test gives it. */
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LLM_")));

const row = (id: string, title: string, summary: string) =>
  JSON.stringify({ id, categories: ["cs.AI"], authors: ["A. Author"], title, comment: null, summary });

/** Six papers, one of them listed twice (a cross-list), and a row whose id is not an arXiv id. */
const LISTING = [
  row(
    "2606.00001",
    "An Agent Runtime with Audited Tool Calls",
    "We build a runtime for tool-calling agents.",
  ),
  row("2606.00002", "Permissions for Multi-Agent Systems", "We study access control between LLM agents."),
  row("2606.00003", "A Benchmark of Agent Memory", "We evaluate memory in LLM agents."),
  row("2606.00004", "Segmenting Cells in Microscopy Images", "A vision model for cell segmentation."),
  row("2606.00005", "Bounds for Sparse Recovery", "A theorem about compressed sensing."),
  row("2606.00006", "Serving Small Models Cheaply", "Latency and cost of on-premises inference."),
  row("2606.00003", "A Benchmark of Agent Memory", "We evaluate memory in LLM agents."),
  row("not-an-id", "A Row Without an arXiv Id", "Skipped and counted."),
].join("\n");

const label = (value: 0 | 1 | 2) => ({
  label: value,
  group: value === 0 ? "none" : "substrate",
  reg_fit: value === 0 ? null : 2,
  why: "test",
});

/** 2606.00006 has no label; 2606.09999 is labelled but not in the listing. */
const LABELS = {
  listing: "listing-2026-06-30.jsonl",
  labeled_by: "test",
  labels: {
    "2606.00001": label(2),
    "2606.00002v2": label(2),
    "2606.00003": label(1),
    "2606.00004": label(0),
    "2606.00005": label(0),
    "2606.09999": label(0),
  },
};

/**
 * The level the fake judge claims on every axis. It cites the title (lower-cased, in quotation marks)
 * and the abstract as evidence for every axis and for REG FIT, so each axis is held to the rules
 * scorer's level plus one per quote that shows a signal of that axis: 2606.00004 (label 0) claims 5
 * but quotes nothing that shows a signal and stays at 0; 2606.00003 rises above the rules' 10 on the
 * quotes that carry it; 2606.00002 (label 2), which the judge dismisses, falls to 0.
 */
const CLAIM: Record<string, number> = {
  "2606.00001": 5,
  "2606.00002": 0,
  "2606.00003": 5,
  "2606.00004": 5,
  "2606.00005": 5,
  "2606.00006": 5,
};

function judge(call: RecordedCall): string {
  const body = call.body as { messages: Array<{ content: string }> };
  const paper = readDataBlock(body.messages[1]?.content ?? "") ?? {};
  const score = CLAIM[String(paper.id)] ?? 0;
  const evidence = [
    { signal: "fake", quote: `"${String(paper.title).toLowerCase()}"` },
    { signal: "fake", quote: String(paper.abstract) },
  ];
  const axis = { score, evidence };
  return JSON.stringify({
    axes: { A1: axis, A2: axis, A3: axis, A4: axis, A5: axis, A6: axis, A7: axis, A8: axis, A9: axis },
    reg_fit: { score: 2, rationale: "fake", evidence },
  });
}

let root: string;
let labelsPath: string;
let model: FakeModel;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "picks-eval-"));
  labelsPath = join(root, "labels-2026-06-30.json");
  await writeFile(join(root, "listing-2026-06-30.jsonl"), `${LISTING}\n`);
  await writeFile(labelsPath, JSON.stringify(LABELS));
  model = await startFakeModel((call, response) => json(response, 200, completion(judge(call))));
});
afterAll(() => model.close());

async function withJudge(args: string[]) {
  return runPicks(["eval", "--judge", "llm", "--ranker", "rules", ...args], {
    ...BASE_ENV,
    LLM_BASE_URL: model.baseUrl,
    LLM_MODEL: "fake-judge",
    JUDGE_CACHE_DIR: await mkdtemp(join(tmpdir(), "picks-eval-cache-")),
  });
}

describe("picks eval", () => {
  it("measures the rules scorer on the three released days and prints one JSON document", async () => {
    const result = await runPicks(
      [
        "eval",
        "--labels",
        ...RELEASED_DAYS.map((day) => day.labels),
        "--listing",
        RELEASED_DAYS[2].listing,
        "--json",
      ],
      BASE_ENV,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      rubric_version: (await loadRubric()).version,
      scorer: "rules",
      overall: { days: 3, screened: 194 + 256 + 250 },
      gate: { passed: true, misses: [] },
    });
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(["rubric_version", "scorer", "days", "overall", "gate"]),
    );
    expect(
      report.days.map((day: Record<string, unknown>) => [
        day.date,
        day.screened,
        day.labelled,
        day.duplicates,
      ]),
    ).toEqual([
      ["2025-11-19", 194, 194, 59],
      ["2026-03-11", 256, 256, 54],
      ["2026-06-12", 250, 250, 64],
    ]);
    for (const day of report.days) {
      expect(day).toMatchObject({ unlabelled: 0, labels_not_in_listing: [], skipped: 0 });
      for (const key of [
        "picks",
        "precision",
        "top",
        "top_possible",
        "recall_top10",
        "auc",
        "auc_on_topic",
      ]) {
        expect(day).toHaveProperty(key);
      }
      expect(day.false_positives.length).toBeLessThanOrEqual(5);
      expect(day.misses.length).toBeLessThanOrEqual(5);
    }
  });

  it("reads the listing beside the labels file, skipping malformed rows and counting repeated ids once", async () => {
    const result = await runPicks(["eval", "--labels", labelsPath, "--json"], BASE_ENV);
    expect(result.code).toBe(0);
    const [day] = JSON.parse(result.stdout).days;
    expect(day).toMatchObject({
      date: "2026-06-30",
      listing: join(root, "listing-2026-06-30.jsonl"),
      screened: 6,
      labelled: 5,
      unlabelled: 1,
      labels_not_in_listing: ["2606.09999"],
      skipped: 1,
      skipped_rows: [{ id: "not-an-id", reason: "malformed arXiv id" }],
      duplicates: 1,
      label_counts: { top: 2, on_topic: 1, off_mission: 2 },
      top_possible: 2,
    });
  });

  it("measures the language-model judge the same way", async () => {
    const result = await withJudge(["--labels", labelsPath, "--min-total", "1", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ scorer: "llm", model: "fake-judge" });
    const [day] = report.days;
    // The rules alone: 00001 10, 00003 10, 00002 9, 00006 2, 00004 0, 00005 0. Held to its quotes, the
    // judge ranks 00003 (13, label 1), 00001 (10, 2), 00006 (4), 00005 (1, 0), 00002 (0, 2), 00004 (0, 0).
    expect(
      day.picks.map((pick: { id: string; total: number; label: number | null }) => [
        pick.id,
        pick.total,
        pick.label,
      ]),
    ).toEqual([
      ["2606.00003", 13, 1],
      ["2606.00001", 10, 2],
      ["2606.00006", 4, null],
      ["2606.00005", 1, 0],
    ]);
    expect(day).toMatchObject({
      precision: 2 / 3,
      top: 1,
      top_possible: 2,
      recall_top10: 1,
      auc: 0.625,
      auc_on_topic: 0.75,
      scoring: { scorer: "llm", llm_scored: 6, fallbacks: [] },
    });
    // Only the quote that shows a signal of its axis counts, and what is published is the source's words.
    expect(day.false_positives).toMatchObject([
      {
        id: "2606.00005",
        rank: 4,
        total: 1,
        kept: true,
        evidence: [{ axis: "A8", signal: "llm: A8.formal", text: "A theorem about compressed sensing." }],
      },
      { id: "2606.00004", rank: 6, total: 0, reg_fit: 1, kept: false, evidence: [] },
    ]);
    expect(day.misses.map((miss: { id: string; rank: number }) => [miss.id, miss.rank])).toEqual([
      ["2606.00002", 5],
      ["2606.00001", 2],
    ]);
    expect(day.misses[1].evidence).toContainEqual({
      axis: "A5",
      signal: "llm: A5.audit",
      text: "An Agent Runtime with Audited Tool Calls",
    });
    expect(report.overall).toMatchObject({
      days: 1,
      picks: 4,
      precision: 2 / 3,
      auc_mean: 0.625,
      auc_min: 0.625,
    });
  });

  it("exits 1 when a day misses --min-precision, naming the day and the figure, after the report", async () => {
    const result = await withJudge(["--labels", labelsPath, "--min-total", "1", "--min-precision", "0.9"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("2026-06-30: precision 0.667 is below --min-precision 0.9");
    expect(result.stdout).toContain("2026-06-30");
    expect(result.stdout).toMatch(/precision 0\.67 \(2 of 3 labelled picks on topic\), top 1\/2/);
    expect(result.stdout).toContain("overall: 1 days, 4 picks");

    const json = await withJudge(["--labels", labelsPath, "--min-total", "1", "--min-auc", "0.95", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).gate).toEqual({
      passed: false,
      bounds: { min_auc: 0.95 },
      misses: [{ day: "2026-06-30", metric: "auc", value: 0.625, bound: 0.95 }],
    });
    expect(json.stderr).toContain("2026-06-30: AUC 0.625 is below --min-auc 0.95");
  });

  it.each([
    ["not JSON", "{ labels: ", "not valid JSON"],
    ["a list", "[]", "not in the labels format: the document: Invalid input: expected object"],
    [
      "labels of the wrong shape",
      JSON.stringify({ listing: "x.jsonl", labels: { "2606.00001": { label: "top" } } }),
      "not in the labels format: labels.2606.00001.label",
    ],
    [
      "a malformed id",
      JSON.stringify({ listing: "x.jsonl", labels: { "26.1": label(0) } }),
      "labels.26.1: not an arXiv id",
    ],
  ])("a labels file that is %s: exit 2, naming the file", async (_case, text, problem) => {
    const path = join(await mkdtemp(join(root, "bad-")), "labels-2026-07-01.json");
    await writeFile(path, text);
    const result = await runPicks(["eval", "--labels", path], BASE_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`labels file ${path}`);
    expect(result.stderr).toContain(problem);
    expect(result.stdout).toBe("");
  });

  it("a listing it cannot find: exit 2, naming the labels file and the listing it wants", async () => {
    const path = join(await mkdtemp(join(root, "alone-")), "labels-2026-07-02.json");
    await writeFile(path, JSON.stringify({ ...LABELS, listing: "listing-elsewhere.jsonl" }));
    const result = await runPicks(["eval", "--labels", path], BASE_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`labels file ${path} wants listing listing-elsewhere.jsonl`);
    expect(result.stderr).toContain("--listing");
  });

  it.each([
    [["--min-auc", "abc"], "Expected `--min-auc` to be a number from 0 to 1, got `abc`"],
    [["--min-auc", "1.5"], "Expected `--min-auc` to be a number from 0 to 1, got `1.5`"],
    [["--min-precision", "-0.1"], "Expected `--min-precision` to be a number from 0 to 1, got `-0.1`"],
    [["--max-picks", "many"], "Expected `--max-picks` to be a whole number from 0 to 100, got `many`"],
    [["--judge", "oracle"], "Expected `--judge` to be `rules` or `llm`, got `oracle`"],
    [["--judge", "llm"], "`--judge llm` needs LLM_BASE_URL and LLM_MODEL in the environment"],
  ])("eval %j: exit 2 with a clear message", async (flags, message) => {
    const result = await runPicks(["eval", "--labels", labelsPath, ...flags], BASE_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("without --labels: exit 2", async () => {
    const result = await runPicks(["eval"], BASE_ENV);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--labels");
  });
});
