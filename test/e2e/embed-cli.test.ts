// Word vectors as the operator makes and uses them, real processes on disk: `picks embed` learns them
// from a small corpus of daily listings built here from the recorded fixtures (the real corpus is never
// in the project), `picks train --embeddings` ships them inside the model, and `picks curate` ranks with it.

import { copyFile, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compileRelevance, RelevanceModelSchema, rankPaper } from "../../pipeline/domain/relevance-model.ts";
import {
  chosenSettingsOf,
  DEFAULT_TRAIN_SETTINGS,
  embeddingOf,
  fitRelevanceWith,
  type LabelledDay,
} from "../../pipeline/domain/relevance-training.ts";
import { WordVectorsFileSchema } from "../../pipeline/domain/word-vectors-file.ts";
import { RELEASED_DAYS } from "../helpers/curation.ts";
import { LISTING_250, LISTING_PARTIAL } from "../helpers/fixtures.ts";
import { curateReleasedDay, trainTestModel } from "../helpers/model-runs.ts";
import { runPicks } from "../helpers/processes.ts";

let dir: string;
let corpus: string;
let days: LabelledDay[];
let labelsFiles: string[];

/** A small labelled day in the corpus's own words: agent papers kept, vision papers not. */
async function writeDay(date: string, offset: number): Promise<{ labels: string; day: LabelledDay }> {
  const rows: string[] = [];
  const labels: Record<string, unknown> = {};
  const papers: Array<LabelledDay["papers"][number]> = [];
  const add = (title: string, summary: string, label: 0 | 1 | 2, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `2601.${String(offset + rows.length).padStart(5, "0")}`;
      const paper = { id, categories: ["cs.AI"], authors: ["A. Author"], title: `${title} ${i}`, summary };
      rows.push(JSON.stringify(paper));
      const regFit = label === 0 ? null : label === 2 ? 3 : 2;
      labels[id] = { label, group: label === 0 ? "none" : "governance", reg_fit: regFit, why: "test" };
      papers.push({ paper, label, reg_fit: regFit });
    }
  };
  add("Auditing language model agents", "We evaluate the safety of agents that use tools.", 2, 3);
  add("Agent planning with language models", "Agents plan multi-step tasks with reasoning.", 1, 5);
  add("Image segmentation", "A vision model segments images and video frames.", 0, 12);
  await writeFile(join(dir, `listing-${date}.jsonl`), `${rows.join("\n")}\n`);
  const path = join(dir, `labels-${date}.json`);
  await writeFile(path, JSON.stringify({ listing: `listing-${date}.jsonl`, labeled_by: "test", labels }));
  return { labels: path, day: { date, papers } };
}

const embed = (out: string, extra: string[] = []) =>
  runPicks([
    "embed",
    "--corpus",
    corpus,
    "--out",
    out,
    "--leave-out",
    LISTING_PARTIAL,
    "--name",
    "recorded fixtures",
    "--words",
    "400",
    "--dims",
    "8",
    ...extra,
  ]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "picks-embed-"));
  corpus = join(dir, "corpus");
  await mkdir(corpus);
  // Two days of listings, one of them a labelled day's to be left out, and a file that is not a day.
  await copyFile(LISTING_250, join(corpus, "2026-06-12.jsonl"));
  await copyFile(LISTING_PARTIAL, join(corpus, "2026-06-25.jsonl"));
  await writeFile(join(corpus, "2026-06-12_AI_enhanced_Chinese.jsonl"), "not read\n");
  await writeFile(
    join(corpus, "2026-06-13.jsonl"),
    `${(await readFile(LISTING_PARTIAL, "utf8")).split("\n")[0]}\nnot json\n{"id": 5}\n`,
  );
  const written = [
    await writeDay("2026-01-05", 0),
    await writeDay("2026-01-06", 100),
    await writeDay("2026-01-07", 200),
  ];
  labelsFiles = written.map((item) => item.labels);
  days = written.map((item) => item.day);
});

describe("picks embed", () => {
  it("learns vectors from the day files, leaves out the labelled day's file and papers, and says so on the card", async () => {
    const out = join(dir, "vectors.json");
    const result = await embed(out, ["--commit", "abc123", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    const file = WordVectorsFileSchema.parse(JSON.parse(await readFile(out, "utf8")));
    expect(file.corpus).toEqual({
      name: "recorded fixtures",
      commit: "abc123",
      files: 2,
      // The 250 papers of 2026-06-12; the one paper of 2026-06-13 is the left-out day's.
      papers: 250,
      left_out_days: ["2026-06-25"],
      left_out_papers: 1,
    });
    expect(summary.skipped_lines).toBe(2);
    expect(file.words).toHaveLength(400);
    expect(file.settings).toEqual({ words: 400, dims: 8, window: 5, seed: 50 });
    expect(summary.bytes).toBeLessThan(40_000);
  });

  it("writes the same file to the byte from the same corpus and seed, and another with another seed", async () => {
    const [a, b, c] = [join(dir, "a.json"), join(dir, "b.json"), join(dir, "c.json")];
    await embed(a);
    await embed(b);
    await embed(c, ["--seed", "51"]);
    const [first, second, third] = await Promise.all([a, b, c].map((path) => readFile(path)));
    expect((second as Buffer).equals(first as Buffer)).toBe(true);
    expect((third as Buffer).equals(first as Buffer)).toBe(false);
  });

  it.each([
    [
      ["--corpus", "/nonexistent/corpus"],
      /corpus \/nonexistent\/corpus: cannot read it \(no such directory\)/,
    ],
    [["--dims", "0"], /Expected `--dims` to be a whole number from 2 to 512, got `0`/],
    [
      ["--words", "200", "--dims", "300"],
      /: 200 words get a vector \(at most 200, each in 5 or more of its 276 papers\), too few for 300 dimensions$/m,
    ],
    [["--leave-out", "/nonexistent/listing.jsonl"], /listing \/nonexistent\/listing.jsonl: cannot read it/],
  ])("refuses %j with exit 2 and a message", async (args, message) => {
    const result = await runPicks([
      "embed",
      "--corpus",
      corpus,
      "--out",
      join(dir, "refused.json"),
      ...(args as string[]),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe("picks train --embeddings", () => {
  let modelPath: string;
  let trained: Awaited<ReturnType<typeof runPicks>>;

  beforeAll(async () => {
    await embed(join(dir, "vectors.json"));
    modelPath = join(dir, "model.json");
    trained = await trainTestModel(labelsFiles, modelPath, ["--embeddings", join(dir, "vectors.json")]);
  });

  it("ships the vectors and the card inside the model, and ranks with them as training fitted them", async () => {
    const result = trained;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /word vectors: 400 words x 8 from 250 papers of recorded fixtures, read by on_topic, top, regulated/,
    );
    const model = RelevanceModelSchema.parse(JSON.parse(await readFile(modelPath, "utf8")));
    expect(model.embedding?.corpus.left_out_days).toEqual(["2026-06-25"]);
    expect(model.embedding?.weight).toBe(0.5);
    expect(model.heads.top.vector_weights).toHaveLength(8);
    // The model file ranks each paper as the same fit, made again in memory, scores it.
    const file = WordVectorsFileSchema.parse(JSON.parse(await readFile(join(dir, "vectors.json"), "utf8")));
    const settings = { ...DEFAULT_TRAIN_SETTINGS, embedding: embeddingOf(file) };
    const scorer = fitRelevanceWith(days, settings, chosenSettingsOf(model));
    const papers = days.flatMap((day) => day.papers.map((item) => item.paper));
    const compiled = compileRelevance(model);
    const expected = scorer(papers);
    papers.forEach((paper, k) => {
      const ranking = rankPaper(compiled, paper);
      expect(ranking.relevance.top).toBeCloseTo(expected[k]?.top as number, 3);
      expect(ranking.relevance.on_topic).toBeCloseTo(expected[k]?.on_topic as number, 3);
    });
    // Without the vectors the same file ranks differently: they are read.
    const plain = compileRelevance({ ...model, embedding: undefined });
    const moved = papers.filter(
      (paper) => rankPaper(plain, paper).relevance.top !== rankPaper(compiled, paper).relevance.top,
    );
    expect(moved.length).toBeGreaterThan(0);
  });

  it("refuses a model whose heads' vector weights do not match its vectors", async () => {
    const model = JSON.parse(await readFile(modelPath, "utf8"));
    model.heads.top.vector_weights = [1, 2];
    const parsed = RelevanceModelSchema.safeParse(model);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      "the top head reads the word vectors: 8 vector weights expected",
    );
  });

  it("curates a day with the model that carries vectors", async () => {
    const day = RELEASED_DAYS[0];
    const site = join(dir, "site");
    const result = await curateReleasedDay(site, join(site, "runs"), ["--model", modelPath]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(await readFile(join(site, "v1", "daily", `${day.date}.json`), "utf8"));
    expect(snapshot.picks).toHaveLength(6);
    const card = JSON.parse(await readFile(join(site, "v1", "ranker.json"), "utf8"));
    expect(card.features).toMatch(
      /each paper's word vector \(the idf-weighted mean of 400 words' 8-dimension vectors, learned offline from 250 papers in 2 listings of recorded fixtures, 1 labelled day left out; read by on_topic, top, regulated at scale 0.5\)/,
    );
    for (const pick of snapshot.picks) expect(pick.why_ranked.length).toBeGreaterThan(0);
  });

  it("takes the vectors a model carries: trained again with them, the model is the same to the byte", async () => {
    const again = join(dir, "again.json");
    const result = await trainTestModel(labelsFiles, again, ["--embeddings", modelPath]);
    expect(result.code).toBe(0);
    const [first, second] = await Promise.all([readFile(modelPath), readFile(again)]);
    expect(second.equals(first)).toBe(true);
  });

  it("is refused by picks eval without --cross-validate, which trains the models that would read it", async () => {
    const result = await runPicks(["eval", "--labels", ...labelsFiles, "--embeddings", modelPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/`--embeddings` is for the models `--cross-validate` trains/);
  });

  it("refuses a word-vectors file that is broken, with exit 2 naming it", async () => {
    const broken = join(dir, "broken-vectors.json");
    await writeFile(broken, JSON.stringify({ words: ["a"] }));
    const result = await runPicks([
      "train",
      "--labels",
      ...labelsFiles,
      "--no-operator-labels",
      "--embeddings",
      broken,
      "--out",
      join(dir, "never.json"),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`word vectors ${broken}: not a word-vectors file`);
  });
});
