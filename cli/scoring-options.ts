// The flags that choose how a day is scored and selected, shared by `picks curate` and `picks eval`: an
// evaluation measures exactly what curate would publish only if both read these flags the same way.

import { Option } from "commander";
import { DEFAULT_SELECTION, type SelectionPolicy } from "../pipeline/domain/selection.ts";
import { parseIntOption } from "./options.ts";
import { UsageError } from "./output.ts";

export type JudgeChoice = "rules" | "llm";

export interface ScoringFlags {
  judge: JudgeChoice;
  minTotal?: number;
  maxPicks?: number;
}

function parseJudge(value: string): JudgeChoice {
  if (value === "rules" || value === "llm") return value;
  throw new UsageError(`Expected \`--judge\` to be \`rules\` or \`llm\`, got \`${value}\``);
}

export function judgeOption(): Option {
  return new Option(
    "--judge <scorer>",
    "score with `rules` (deterministic, offline) or `llm` (LLM_* variables)",
  )
    .argParser(parseJudge)
    .default("rules");
}

export function minTotalOption(): Option {
  return new Option("--min-total <n>", "keep candidates whose total reaches n (0-45)").argParser(
    parseIntOption("--min-total", 0, 45),
  );
}

export function maxPicksOption(): Option {
  return new Option("--max-picks <n>", "keep at most n picks a day").argParser(
    parseIntOption("--max-picks", 0, 100),
  );
}

/** The default policy with the flags' overrides; fields the policy gains later keep their defaults. */
export function selectionFrom(flags: Pick<ScoringFlags, "minTotal" | "maxPicks">): SelectionPolicy {
  return {
    ...DEFAULT_SELECTION,
    ...(flags.minTotal === undefined ? {} : { min_total: flags.minTotal }),
    ...(flags.maxPicks === undefined ? {} : { max_picks: flags.maxPicks }),
  };
}
