// `picks eval --simulate-labelling`: which papers of a day are worth the operator's answers first.
// Reads the labelled days, runs the simulation (pipeline/domain/labelling.ts) and prints its learning
// curves; `cli/eval-command.ts` only adds the flags and hands over.

import {
  headToHead,
  headToHeadLine,
  isLabellingStrategy,
  LABELLING_STRATEGIES,
  type LabellingStrategy,
  learningCurveLines,
  SIMULATION_MIN_DAYS,
  simulateLabelling,
} from "../pipeline/domain/labelling.ts";
import { DEFAULT_TRAIN_SETTINGS } from "../pipeline/domain/relevance-training.ts";
import { readLabelledDays } from "../pipeline/relevance-file.ts";
import { type Output, UsageError } from "./output.ts";

export interface SimulationFlags {
  labels: string[];
  listing?: string[];
  k: number[];
  strategies: LabellingStrategy[];
  baseDays?: number;
}

/** The default base: three days, or fewer when fewer are given (see docs/curation.md for why three). */
export const DEFAULT_BASE_DAYS = 3;

/** `--k 10,20,40`: how many answers, each a whole number from 1. */
export function parseKList(value: string): number[] {
  const parts = value.split(",").map((part) => part.trim());
  if (parts.some((part) => !/^[1-9]\d*$/.test(part))) {
    throw new UsageError(`Expected \`--k\` to be whole numbers from 1, comma-separated, got \`${value}\``);
  }
  return parts.map(Number);
}

/** `--strategies random,most-uncertain`. */
export function parseStrategies(value: string): LabellingStrategy[] {
  const parts = value.split(",").map((part) => part.trim());
  const unknown = parts.filter((part) => !isLabellingStrategy(part));
  if (unknown.length > 0 || parts.length === 0) {
    throw new UsageError(
      `Expected \`--strategies\` to name ${LABELLING_STRATEGIES.join(", ")}, got \`${value}\``,
    );
  }
  return [...new Set(parts as LabellingStrategy[])];
}

export async function runLabellingSimulation(flags: SimulationFlags, out: Output): Promise<void> {
  const { days, missing } = await readLabelledDays(flags.labels, flags.listing ?? []);
  if (days.length < SIMULATION_MIN_DAYS) {
    throw new UsageError(
      `\`--simulate-labelling\` needs at least ${SIMULATION_MIN_DAYS} labelled days (a base to train on, a day whose labels are the answers, a day to score); got ${days.length}`,
    );
  }
  const baseDays = flags.baseDays ?? Math.min(DEFAULT_BASE_DAYS, days.length - 2);
  if (baseDays > days.length - 2) {
    throw new UsageError(
      `Expected \`--base-days\` to be at most ${days.length - 2} with ${days.length} labelled days (one is answered, one at least scored), got ${baseDays}`,
    );
  }
  for (const item of missing) {
    out.progress(`${item.labels_file}: ${item.ids.length} labelled ids not in its listing, left out`);
  }
  const result = simulateLabelling(days, {
    // The version names no file: the simulation writes no model.
    train: { ...DEFAULT_TRAIN_SETTINGS, version: "relevance-0000.00.0" },
    strategies: flags.strategies,
    ks: flags.k,
    base_days: baseDays,
    progress: (message) => out.progress(message.trim()),
  });
  const others = flags.strategies.filter((strategy) => strategy !== "most-uncertain");
  const duels = flags.strategies.includes("most-uncertain")
    ? result.ks.flatMap((k) => others.map((other) => headToHead(result, "most-uncertain", other, k)))
    : [];
  out.json({ ...result, head_to_head: duels });
  for (const line of learningCurveLines(result)) out.line(line);
  for (const duel of duels) out.line(headToHeadLine(duel));
}
