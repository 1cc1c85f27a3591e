// The settings search shared over threads (`picks train` runs its folds on one thread per core): the
// model must be the same, to the byte, whether one thread or several computed the folds.
import { describe, expect, it } from "vitest";
import { trainOnThreads } from "../../cli/train-threads.ts";
import { DEFAULT_TRAIN_SETTINGS, trainRelevanceWithFolds } from "../../pipeline/domain/relevance-training.ts";
import { labelledDay } from "../helpers/labelled-days.ts";

// Given out of date order: the folds are indexed by date whatever the order given.
const days = [
  labelledDay("2026-01-07", 200),
  labelledDay("2026-01-05", 0),
  labelledDay("2026-01-08", 300),
  labelledDay("2026-01-06", 100),
];
const settings = {
  ...DEFAULT_TRAIN_SETTINGS,
  version: "relevance-2026.01.1",
  grid: [0.5, 2],
  regulated_weights: [0, 1],
};

describe("trainOnThreads", () => {
  it("gives the model and folds of one thread, to the byte, with three threads", async () => {
    const alone = trainRelevanceWithFolds(days, settings);
    const shared = await trainOnThreads(days, settings, 3);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(alone));
  });

  it("runs on this thread alone when asked for one", async () => {
    const alone = trainRelevanceWithFolds(days, settings);
    expect(JSON.stringify(await trainOnThreads(days, settings, 1))).toBe(JSON.stringify(alone));
  });
});
