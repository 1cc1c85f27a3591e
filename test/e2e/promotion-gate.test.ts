// The promotion gate as the operator meets it: `picks train` into a models folder holding the shipped
// model. A model trained on two days only measures worse on those days than the current one and is not
// promoted (exit 1, the two side by side, the candidate kept aside); nor is the model of all twelve
// released days, which picks one must-read fewer over them than the shipped one (so the shipped model
// stays); a retrain on the same eight days is no worse and becomes the newest model, naming the one it
// replaced. A candidate file that fails the model schema is never promoted.

import { copyFile, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RelevanceModelSchema } from "../../pipeline/domain/relevance-model.ts";
import {
  MODELS_DIR,
  ModelFileError,
  newestModelPath,
  promoteCandidate,
} from "../../pipeline/relevance-file.ts";
import { LABELLED_DAYS, UNTUNED_DAYS } from "../helpers/curation.ts";
import { runPicks } from "../helpers/processes.ts";

const SHIPPED = "relevance-2026.11.2";
/** The eight days the shipped model learned from: every released day but the four released last. */
const EIGHT_DAYS = LABELLED_DAYS.filter((day) => !(UNTUNED_DAYS as readonly string[]).includes(day.date));
let models: string;
/**
 * Training on eight or twelve days, and the gate's folds: under a minute on an idle 2-core machine; the
 * twelve-day run took ten minutes on one shared by seven test runs.
 */
const TRAINING_TIMEOUT = 900_000;

const train = (days: typeof LABELLED_DAYS, extra: string[] = [], into = models) =>
  runPicks([
    "train",
    "--labels",
    ...days.map((day) => day.labels),
    "--listing",
    ...days.map((day) => day.listing),
    "--no-operator-labels",
    "--models-dir",
    into,
    ...extra,
  ]);

beforeAll(async () => {
  models = await mkdtemp(join(tmpdir(), "picks-models-"));
  await copyFile(join(MODELS_DIR, `${SHIPPED}.json`), join(models, `${SHIPPED}.json`));
});

describe("picks train: the promotion gate", () => {
  it("keeps the current model when the new one, trained on two days only, measures worse", async () => {
    const twoDays = LABELLED_DAYS.filter((day) => ["2026-06-12", "2026-07-01"].includes(day.date));
    const result = await train(twoDays);
    expect(result.code, result.stderr).toBe(1);
    // The two side by side, day by day, and why it lost.
    expect(result.stdout).toMatch(
      /promotion gate: relevance-\S+ \(new\) against relevance-2026\.11\.2 \(current\)/,
    );
    expect(result.stdout).toMatch(/2026-06-12 .*trained on it/);
    expect(result.stdout).toMatch(/2026-07-01 .*trained on it/);
    expect(result.stderr).toMatch(/measured worse than relevance-2026\.11\.2 and was not promoted/);
    expect(result.stderr).toMatch(/--promote-anyway/);
    // Still the shipped model; the candidate is kept aside, where curate never looks.
    expect(await newestModelPath(models)).toBe(join(models, `${SHIPPED}.json`));
    const aside = await readdir(join(models, "candidates"));
    expect(aside).toHaveLength(1);
    const candidate = RelevanceModelSchema.parse(
      JSON.parse(await readFile(join(models, "candidates", aside[0] as string), "utf8")),
    );
    expect(candidate.promotion).toMatchObject({ replaced: SHIPPED, decision: "not promoted" });
    expect(candidate.promotion?.worse.length).toBeGreaterThan(0);
  });

  it(
    "keeps the shipped model against the model of all twelve days, which picks fewer must-reads",
    async () => {
      const aside = await mkdtemp(join(tmpdir(), "picks-models-twelve-"));
      await copyFile(join(MODELS_DIR, `${SHIPPED}.json`), join(aside, `${SHIPPED}.json`));
      const result = await train(LABELLED_DAYS, ["--json"], aside);
      expect(result.code, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary.promoted).toBeNull();
      expect(await newestModelPath(aside)).toBe(join(aside, `${SHIPPED}.json`));
      const days = summary.promotion.days as Array<{ date: string; current: { measured: string } }>;
      expect(days.map((day) => day.date)).toEqual(LABELLED_DAYS.map((day) => day.date));
      // The four days released last were never seen by the shipped model: measured as it is.
      for (const day of days) {
        const unseen = (UNTUNED_DAYS as readonly string[]).includes(day.date);
        expect(day.current.measured, day.date).toBe(unseen ? "unseen" : "left out");
      }
      expect(summary.promotion.worse).toContain("over the days: top picks 35 < 36");
    },
    TRAINING_TIMEOUT,
  );

  it(
    "promotes a retrain on the same eight days: no worse, and the card names what it replaced",
    async () => {
      const result = await train(EIGHT_DAYS, ["--json"]);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary.promoted).toBe(join(models, `${summary.version}.json`));
      expect(await newestModelPath(models)).toBe(summary.promoted);
      const model = RelevanceModelSchema.parse(JSON.parse(await readFile(summary.promoted, "utf8")));
      expect(model.promotion).toMatchObject({ replaced: SHIPPED, decision: "no worse", worse: [] });
      // Every day measured by models that did not see it, on both sides.
      expect(model.promotion?.days.map((day) => day.date)).toEqual(EIGHT_DAYS.map((day) => day.date));
      for (const day of model.promotion?.days ?? []) {
        expect(day.candidate.measured).toBe("left out");
        expect(day.current.measured).toBe("left out");
      }
      // The same procedure on the same labels: the same weights as the shipped model.
      const shipped = JSON.parse(await readFile(join(MODELS_DIR, `${SHIPPED}.json`), "utf8"));
      expect(model.heads).toEqual(shipped.heads);
      expect(model.calibration).toEqual(shipped.calibration);
    },
    TRAINING_TIMEOUT,
  );

  it(
    "measures the current model as it is on a day relabelled since it learned from it",
    async () => {
      // 2026-06-03 with one off-mission paper made on topic, its listing beside the copy.
      const day = LABELLED_DAYS.find((item) => item.date === "2026-06-03") as (typeof LABELLED_DAYS)[number];
      const dir = await mkdtemp(join(tmpdir(), "picks-relabelled-"));
      const file = JSON.parse(await readFile(day.labels, "utf8"));
      const [id] =
        Object.entries(file.labels).find(([, label]) => (label as { label: number }).label === 0) ?? [];
      file.labels[id as string] = { label: 1, group: "substrate", reg_fit: 2, why: "relabelled" };
      const labels = join(dir, "labels-2026-06-03.json");
      await writeFile(labels, JSON.stringify(file));
      await copyFile(day.listing, join(dir, file.listing));
      const days = EIGHT_DAYS.map((item) => (item === day ? { ...item, labels } : item));
      // Whether it is promoted or not, the comparison says how the current model was measured.
      const aside = await mkdtemp(join(tmpdir(), "picks-models-relabelled-"));
      await copyFile(join(MODELS_DIR, `${SHIPPED}.json`), join(aside, `${SHIPPED}.json`));
      const gated = await train(days, ["--json"], aside);
      const summary = JSON.parse(gated.stdout);
      const measured = new Set(
        summary.promotion.days.map((item: { current: { measured: string } }) => item.current.measured),
      );
      expect([...measured]).toEqual(["trained on it"]);
    },
    TRAINING_TIMEOUT,
  );

  it("refuses a --model-version that is not newer than the current model (exit 2, before training)", async () => {
    const result = await train(LABELLED_DAYS.slice(0, 2), ["--model-version", "relevance-2026.11.2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /model-version relevance-2026\.11\.2` is not newer than the current model relevance-/,
    );
  });

  it("never promotes a candidate whose file fails the model schema", async () => {
    const broken = join(models, "candidates", "relevance-2026.11.9.json");
    const shipped = JSON.parse(await readFile(join(models, `${SHIPPED}.json`), "utf8"));
    await writeFile(
      broken,
      JSON.stringify({ ...shipped, version: "relevance-2026.11.9", calibration: { method: "isotonic" } }),
    );
    const before = await readdir(models);
    await expect(promoteCandidate(broken, models)).rejects.toThrow(ModelFileError);
    await expect(promoteCandidate(broken, models)).rejects.toThrow(
      /not promoted: not a relevance model: calibration/,
    );
    expect(await readdir(models)).toEqual(before);
  });

  it("refuses to compare with a current model it cannot read: exit 1 before training, nothing written", async () => {
    const unreadable = await mkdtemp(join(tmpdir(), "picks-models-old-"));
    await writeFile(join(unreadable, "relevance-2026.01.1.json"), JSON.stringify({ format: 1 }));
    const refused = await train(LABELLED_DAYS.slice(0, 2), [], unreadable);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /current model cannot be compared with: relevance-2026\.01\.1: .*format 1/,
    );
    expect(await readdir(unreadable)).toEqual(["relevance-2026.01.1.json"]);
  });
});
