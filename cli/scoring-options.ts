// The flags that choose how a day is scored and selected, shared by `picks curate` and `picks eval`: an
// evaluation measures exactly what curate would publish only if both read these flags the same way.

import { type Command, Option } from "commander";
import type { CompiledRelevance } from "../pipeline/domain/relevance-model.ts";
import { DEFAULT_SELECTION, RANKED_SELECTION, type SelectionPolicy } from "../pipeline/domain/selection.ts";
import { loadRelevanceModel, newestModelPath } from "../pipeline/relevance-file.ts";
import { parseIntOption } from "./options.ts";
import { UsageError } from "./output.ts";

export type JudgeChoice = "rules" | "llm";
export type RankerChoice = "model" | "rules";

export interface ScoringFlags {
  judge: JudgeChoice;
  ranker: RankerChoice;
  model?: string;
  minTotal?: number;
  maxPicks?: number;
}

function parseJudge(value: string): JudgeChoice {
  if (value === "rules" || value === "llm") return value;
  throw new UsageError(`Expected \`--judge\` to be \`rules\` or \`llm\`, got \`${value}\``);
}

function judgeOption(): Option {
  return new Option(
    "--judge <scorer>",
    "score with `rules` (deterministic, offline) or `llm` (LLM_* variables)",
  )
    .argParser(parseJudge)
    .default("rules");
}

function parseRanker(value: string): RankerChoice {
  if (value === "model" || value === "rules") return value;
  throw new UsageError(`Expected \`--ranker\` to be \`model\` or \`rules\`, got \`${value}\``);
}

function rankerOption(): Option {
  return new Option(
    "--ranker <ranker>",
    "order candidates by the relevance `model` (learned from labelled days) or by the rubric's total (`rules`)",
  )
    .argParser(parseRanker)
    .default("model");
}

function modelOption(): Option {
  return new Option("--model <file>", "the relevance model (default: the newest in data/models/)");
}

/** The relevance model the flags name (`--ranker model`), or none; a bad file fails before any work. */
export async function rankerFrom(
  flags: Pick<ScoringFlags, "ranker" | "model">,
): Promise<CompiledRelevance | undefined> {
  if (flags.model !== undefined && flags.ranker === "rules") {
    throw new UsageError("`--model` applies only to `--ranker model`");
  }
  if (flags.ranker === "rules") return undefined;
  return loadRelevanceModel(flags.model ?? (await newestModelPath()));
}

function minTotalOption(): Option {
  return new Option("--min-total <n>", "keep candidates whose total reaches n (0-45)").argParser(
    parseIntOption("--min-total", 0, 45),
  );
}

function maxPicksOption(): Option {
  return new Option("--max-picks <n>", "keep at most n picks a day").argParser(
    parseIntOption("--max-picks", 0, 100),
  );
}

// Adds the five scoring flags to a command, so that every command that scores a day reads them alike.
export function addScoringOptions(command: Command): Command {
  return command
    .addOption(judgeOption())
    .addOption(rankerOption())
    .addOption(modelOption())
    .addOption(minTotalOption())
    .addOption(maxPicksOption());
}

/**
 * The default policy of the ranker with the flags' overrides; fields the policy gains later keep their
 * defaults. The model chooses its best-ranked with no rubric floor, the rules above a bar of 13 (see
 * RANKED_SELECTION); `--min-total` sets a floor on the total for either.
 */
export function selectionFrom(
  flags: Pick<ScoringFlags, "minTotal" | "maxPicks" | "ranker">,
): SelectionPolicy {
  return {
    ...(flags.ranker === "rules" ? DEFAULT_SELECTION : RANKED_SELECTION),
    ...(flags.minTotal === undefined ? {} : { min_total: flags.minTotal }),
    ...(flags.maxPicks === undefined ? {} : { max_picks: flags.maxPicks }),
  };
}
