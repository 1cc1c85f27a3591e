// The relevance model as the operator uses it, real processes on disk: `picks train` on labelled days,
// `picks curate` ranking with the shipped model (and refusing a broken one), `picks label` in both forms,
// the ranker card served by `picks serve`, the labelling simulation of `picks eval`.

import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ASKED_AFTER_PICKS, labellingQueue } from "../../pipeline/domain/labelling.ts";
import { RankerCardSchema } from "../../pipeline/domain/ranker-card.ts";
import { readRelevanceModel } from "../../pipeline/domain/relevance-model.ts";
import { RunRecordSchema } from "../../pipeline/domain/run-record.ts";
import { DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";
import { readLabelsFile } from "../../pipeline/labels-file.ts";
import { RELEASED_DAYS } from "../helpers/curation.ts";
import { curateReleasedDay, trainTestModel } from "../helpers/model-runs.ts";
import { PICKS_BIN, runPicks, startPicksServer } from "../helpers/processes.ts";

const row = (id: string, title: string, summary: string) =>
  JSON.stringify({ id, categories: ["cs.AI"], authors: ["A. Author"], title, summary });

/** A small labelled day: must-reads on agent governance, on-topic agent papers, off-mission vision. */
async function writeDay(dir: string, date: string, offset: number): Promise<string> {
  const rows: string[] = [];
  const labels: Record<string, unknown> = {};
  const add = (title: string, label: 0 | 1 | 2, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `2601.${String(offset + rows.length).padStart(5, "0")}`;
      rows.push(row(id, `${title} ${i}`, `We study ${title} in setting ${i}.`));
      labels[id] = {
        label,
        group: label === 0 ? "none" : "governance",
        reg_fit: label === 0 ? null : label === 2 ? 3 : 2,
        why: "test",
      };
    }
  };
  add("agent governance audit", 2, 3);
  add("agent tool runtime", 1, 5);
  add("image segmentation pixels", 0, 12);
  await writeFile(join(dir, `listing-${date}.jsonl`), `${rows.join("\n")}\n`);
  const path = join(dir, `labels-${date}.json`);
  await writeFile(path, JSON.stringify({ listing: `listing-${date}.jsonl`, labeled_by: "test", labels }));
  return path;
}

let dir: string;
let labelsFiles: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "picks-ranker-"));
  labelsFiles = [
    await writeDay(dir, "2026-01-05", 0),
    await writeDay(dir, "2026-01-06", 100),
    await writeDay(dir, "2026-01-07", 200),
  ];
});

describe("picks train", () => {
  const train = (out: string, extra: string[] = []) => trainTestModel(labelsFiles, out, extra);

  it("writes a valid, versioned model with its days and figures, byte-identical on a second run", async () => {
    const first = await train(join(dir, "first.json"), ["--json"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary.version).toBe("relevance-2026.01.1");
    expect(summary.training.days.map((day: { date: string }) => day.date)).toEqual([
      "2026-01-05",
      "2026-01-06",
      "2026-01-07",
    ]);
    expect(summary.cross_validation).toHaveLength(3);
    const second = await train(join(dir, "second.json"));
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/leave one day out/);
    const [a, b] = await Promise.all([readFile(join(dir, "first.json")), readFile(join(dir, "second.json"))]);
    expect(b.equals(a)).toBe(true);
    expect("model" in readRelevanceModel(JSON.parse(a.toString()))).toBe(true);
  });

  it("refuses a labels file that is not JSON, or not in the format, with exit 2 naming it", async () => {
    const broken = join(dir, "labels-broken.json");
    await writeFile(broken, "{ not json");
    const notJson = await runPicks([
      "train",
      "--labels",
      broken,
      ...labelsFiles,
      "--out",
      join(dir, "x.json"),
    ]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain(broken);
    expect(notJson.stderr).toMatch(/not valid JSON/);
    const wrong = join(dir, "labels-wrong.json");
    await writeFile(
      wrong,
      JSON.stringify({ listing: "listing-2026-01-05.jsonl", labels: { "2601.00000": { label: 5 } } }),
    );
    const format = await runPicks(["train", "--labels", wrong, ...labelsFiles, "--out", join(dir, "y.json")]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain(wrong);
  });
});

describe("picks eval --simulate-labelling", () => {
  it("prints learning curves for each strategy beside the base model, as JSON with --json", async () => {
    const result = await runPicks([
      "eval",
      "--simulate-labelling",
      "--labels",
      ...labelsFiles,
      "--k",
      "4,8",
      "--json",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.base_days).toBe(1);
    expect(report.runs).toHaveLength(3);
    expect(
      report.curves.map((point: { strategy: string; k: number }) => `${point.strategy} ${point.k}`),
    ).toEqual([
      "base 0",
      "random 4",
      "random 8",
      "best-ranked 4",
      "best-ranked 8",
      "most-uncertain 4",
      "most-uncertain 8",
    ]);
    expect(report.head_to_head).toHaveLength(4);
    const text = await runPicks(["eval", "--simulate-labelling", "--labels", ...labelsFiles, "--k", "4"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/labelling simulation: 3 held-out days/);
    expect(text.stdout).toMatch(/most-uncertain against best-ranked, k = 4: AP/);
  });

  it("refuses fewer than three labelled days with exit 2, saying how many it needs", async () => {
    const result = await runPicks(["eval", "--simulate-labelling", "--labels", ...labelsFiles.slice(0, 2)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs at least 3 labelled days .*; got 2/);
    const badK = await runPicks(["eval", "--simulate-labelling", "--labels", ...labelsFiles, "--k", "ten"]);
    expect(badK.code).toBe(2);
    expect(badK.stderr).toMatch(/Expected `--k`/);
  });
});

describe("picks curate with the shipped model", () => {
  const day = RELEASED_DAYS[0];
  let out: string;
  let runs: string;

  beforeAll(async () => {
    out = join(dir, "site");
    runs = join(dir, "runs");
    const result = await curateReleasedDay(out, runs);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ranked by relevance model relevance-\d{4}\.\d{2}\.\d+/);
  });

  it("keeps relevance and rank_score for every screened candidate, in rank-score order", async () => {
    const record = RunRecordSchema.parse(JSON.parse(await readFile(join(runs, `${day.date}.json`), "utf8")));
    expect(record.ranker?.name).toBe("model");
    expect(record.candidates.length).toBeGreaterThan(100);
    for (const candidate of record.candidates) {
      expect(candidate.relevance).toBeDefined();
      expect(candidate.rank_score).toBeGreaterThanOrEqual(0);
    }
    const kept = record.candidates.filter((candidate) => candidate.kept);
    const scores = kept.map((candidate) => candidate.rank_score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("publishes the model's six best-ranked, each with why_ranked beside its axis evidence and REG FIT", async () => {
    const snapshot = DailySnapshotSchema.parse(
      JSON.parse(await readFile(join(out, "v1", "daily", `${day.date}.json`), "utf8")),
    );
    // No rubric floor: REG FIT explains a pick and turns none away.
    expect(snapshot.selection).toEqual({ min_total: 0, min_reg_fit: 1, max_picks: 6 });
    expect(snapshot.picks).toHaveLength(6);
    const record = RunRecordSchema.parse(JSON.parse(await readFile(join(runs, `${day.date}.json`), "utf8")));
    const best = [...record.candidates]
      .sort((a, b) => (b.rank_score as number) - (a.rank_score as number))
      .slice(0, 6)
      .map((candidate) => candidate.id);
    expect(snapshot.picks.map((pick) => pick.arxiv_id).sort()).toEqual([...best].sort());
    for (const pick of snapshot.picks) {
      expect(pick.why_ranked?.length).toBeGreaterThan(0);
      expect(pick.relevance?.on_topic).toBeGreaterThan(0);
      expect(pick.scores.reg_fit.rationale.length).toBeGreaterThan(0);
    }
    for (const candidate of record.candidates.filter((item) => item.kept)) {
      expect(candidate.reason).toMatch(
        /^kept: rank score \d\.\d\d, total \d+, REG FIT \d, no floor, rank \d$/,
      );
    }
  });

  it("writes the ranker card, and picks serve answers it, valid against its schema", async () => {
    const card = RankerCardSchema.parse(JSON.parse(await readFile(join(out, "v1", "ranker.json"), "utf8")));
    expect(card.ranker).toBe("model");
    expect(card.trained_on.length).toBeGreaterThanOrEqual(6);
    // How sure the picks are: every training day measured nested (and the days released since), and the
    // selection rules compared.
    const nestedDays = card.nested?.days.map((item) => item.date) ?? [];
    expect(nestedDays).toEqual(expect.arrayContaining(card.trained_on.map((item) => item.date)));
    expect(card.nested?.how).toContain(`learned from ${card.trained_on.length} of these days`);
    expect(card.nested?.selection.some((rule) => rule.gates_on_reg_fit)).toBe(true);
    const server = await startPicksServer(out, { STATE_DIR: join(dir, "state") });
    try {
      const response = await fetch(`${server.url}/v1/ranker`);
      expect(response.status).toBe(200);
      expect(RankerCardSchema.parse(await response.json())).toEqual(card);
    } finally {
      await server.stop();
    }
  });

  it("ranks by the rubric's total with --ranker rules, and says so on the card", async () => {
    const rulesOut = join(dir, "rules-site");
    const result = await curateReleasedDay(rulesOut, join(dir, "rules-runs"), ["--ranker", "rules"]);
    expect(result.code).toBe(0);
    const card = RankerCardSchema.parse(
      JSON.parse(await readFile(join(rulesOut, "v1", "ranker.json"), "utf8")),
    );
    expect(card.ranker).toBe("rules");
    const snapshot = JSON.parse(await readFile(join(rulesOut, "v1", "daily", `${day.date}.json`), "utf8"));
    expect(snapshot.picks[0].why_ranked).toBeUndefined();
  });

  it.each([
    ["missing", null, /no such file/],
    ["not JSON", "{", /not valid JSON/],
    ["of an unknown format", JSON.stringify({ format: 99 }), /format 99 is not one this version reads/],
  ])("stops before publishing anything when the model file is %s (exit 1, the file and the fallback named)", async (_what, content, why) => {
    const model = join(dir, `model-${Math.random().toString(36).slice(2)}.json`);
    if (content !== null) await writeFile(model, content);
    const site = join(dir, `site-${Math.random().toString(36).slice(2)}`);
    const result = await curateReleasedDay(site, join(site, "runs"), ["--model", model]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(model);
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toContain("--ranker rules");
    await expect(readdir(site)).rejects.toThrow(/ENOENT/);
  });
});

describe("picks label", () => {
  let runs: string;
  let labelsDir: string;
  let ids: string[];
  const date = RELEASED_DAYS[0].date;

  beforeAll(async () => {
    runs = join(dir, "label-runs");
    labelsDir = join(dir, "labels");
    await mkdir(labelsDir, { recursive: true });
    const result = await curateReleasedDay(join(dir, "label-site"), runs);
    expect(result.code).toBe(0);
    const record = RunRecordSchema.parse(JSON.parse(await readFile(join(runs, `${date}.json`), "utf8")));
    ids = record.candidates.map((candidate) => candidate.id);
  });

  const label = (args: string[]) => runPicks(["label", ...args, "--runs", runs, "--labels", labelsDir]);

  it("records --set answers into a valid labels file with its listing beside it, and adds to it later", async () => {
    const first = await label([date, "--set", `${ids[0]}=2:3`, "--set", `${ids[1]}=0`]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const second = await label([date, "--set", `${ids[2]}=1`]);
    expect(second.code).toBe(0);
    const file = await readLabelsFile(join(labelsDir, `labels-${date}.json`));
    expect(file.listing).toBe(`listing-${date}.jsonl`);
    expect(file.labels[ids[0] as string]).toMatchObject({ label: 2, reg_fit: 3 });
    expect(file.labels[ids[1] as string]).toMatchObject({ label: 0, group: "none", reg_fit: null });
    expect(file.labels[ids[2] as string]?.label).toBe(1);
    const listing = await readFile(join(labelsDir, `listing-${date}.jsonl`), "utf8");
    expect(listing.trim().split("\n")).toHaveLength(ids.length);
  });

  it("walks through the day on a terminal: the picks, then where the model is unsure; each answer saved, kept when quit early", async () => {
    const fresh = join(dir, "labels-tty");
    await mkdir(fresh);
    const record = RunRecordSchema.parse(JSON.parse(await readFile(join(runs, `${date}.json`), "utf8")));
    const queue = labellingQueue(record.candidates);
    const picks = record.candidates.filter((candidate) => candidate.kept).length;
    expect(picks).toBeGreaterThan(0);
    expect(queue).toHaveLength(picks + ASKED_AFTER_PICKS);
    // After the picks, the papers the model is least sure are must-reads: not simply the best-ranked.
    const asked = queue.slice(picks).map((item) => item.candidate.id);
    const bestRanked = record.candidates.filter((candidate) => !candidate.kept).slice(0, ASKED_AFTER_PICKS);
    expect(asked).not.toEqual(bestRanked.map((candidate) => candidate.id));
    const firstAsked = queue[picks]?.candidate as (typeof record.candidates)[number];
    // A real pseudo-terminal (util-linux `script`); keys are sent one at a time, as a person types them.
    const command = `${process.execPath} ${PICKS_BIN} label ${date} --runs ${runs} --labels ${fresh}`;
    const child = execFile("script", ["-q", "-e", "-c", command, "/dev/null"], { timeout: 60_000 });
    let screen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
    });
    const waitFor = async (pattern: RegExp, count: number) => {
      for (let tries = 0; tries < 300; tries++) {
        if ((screen.match(new RegExp(pattern.source, "g")) ?? []).length >= count) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`never saw ${pattern} ${count} times in:\n${screen}`);
    };
    const type = async (key: string) => {
      child.stdin?.write(key);
    };
    const prompt = /label \[2\/1\/0, s, b, q\]\?/;
    await waitFor(prompt, 1);
    expect(screen).toContain(`[1/${queue.length}] ${queue[0]?.candidate.id}  pick 1`);
    await type("2");
    await waitFor(/REG FIT \[1\/2\/3/, 1);
    await type("3");
    // Skip the other picks, then answer the first paper asked for the model's sake.
    for (let asked = 2; asked <= picks; asked++) {
      await waitFor(prompt, asked);
      await type("s");
    }
    await waitFor(prompt, picks + 1);
    expect(screen).toMatch(
      new RegExp(
        `\\[${picks + 1}/${queue.length}\\] ${firstAsked.id.replace(".", "\\.")}  model unsure: must-read 0\\.\\d\\d`,
      ),
    );
    await type("0");
    await waitFor(prompt, picks + 2);
    await type("q");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(screen).toMatch(/2 answered/);
    const file = await readLabelsFile(join(fresh, `labels-${date}.json`));
    expect(Object.keys(file.labels).sort()).toEqual([queue[0]?.candidate.id, firstAsked.id].sort());
    expect(file.labels[queue[0]?.candidate.id as string]).toMatchObject({ label: 2, reg_fit: 3 });
    expect(file.labels[firstAsked.id]?.label).toBe(0);
  });

  it("refuses a day that was not published, naming the days that were (exit 2)", async () => {
    const result = await label(["2026-02-30"]);
    expect(result.code).toBe(2);
    const unpublished = await label(["2026-02-03", "--set", "2601.00001=2"]);
    expect(unpublished.code).toBe(2);
    expect(unpublished.stderr).toContain(`published days: ${date}`);
  });

  it("refuses an id that is not a candidate of the day, and a malformed --set", async () => {
    expect((await label([date, "--set", "2601.99999=2"])).stderr).toMatch(/not candidates of/);
    const bad = await label([date, "--set", `${ids[0]}=7`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Expected `--set`/);
  });
});
