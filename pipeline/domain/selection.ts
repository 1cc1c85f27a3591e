import { z } from "zod";
import type { Candidate } from "./candidate.ts";
import type { Ranking } from "./relevance-model.ts";
import type { Scores } from "./score.ts";

/** Which scored candidates become the day's picks. */
export const SelectionPolicySchema = z.object({
  min_total: z.int().min(0).max(45).describe("lowest total (0..45) a pick may have"),
  min_reg_fit: z.int().min(1).max(3).describe("lowest REG FIT a pick may have"),
  max_picks: z.int().min(0).describe("at most this many picks a day"),
  floor_spares_top: z
    .int()
    .min(0)
    .optional()
    .describe("the model's first n need not clear min_total and min_reg_fit"),
  min_must_read: z.number().min(0).max(1).optional().describe("lowest must-read likelihood a pick may have"),
  min_on_topic: z.number().min(0).max(1).optional().describe("lowest on-topic head a pick may have"),
});
export type SelectionPolicy = z.infer<typeof SelectionPolicySchema>;

/** Calibrated on real announcement days (250 candidates) to keep about five, ranked by the rubric's total. */
export const DEFAULT_SELECTION: SelectionPolicy = { min_total: 13, min_reg_fit: 2, max_picks: 6 };

/**
 * With the relevance model ranking, the model orders and chooses: the six best-ranked, no rubric floor.
 * Chosen by leave one day out over the twelve released days, the rule chosen inside the folds
 * (`picks eval --cross-validate --compare-selections`, the table in docs/curation.md). The rubric's floor
 * (total 6, REG FIT 2), shipped before, published more must-reads only on the eight days the rubric's
 * rules were tuned on (28 against 25) and fewer on the four it never saw (6 against 9), with an
 * off-mission pick there; with no floor every day's precision was 1.00. REG FIT stays a published score
 * that explains a pick; it no longer turns one away.
 */
export const RANKED_SELECTION: SelectionPolicy = { min_total: 0, min_reg_fit: 1, max_picks: 6 };

/** What selection decided for one candidate, and why. */
export const DecisionSchema = z.object({
  id: z.string(),
  kept: z.boolean(),
  rank: z.int().min(1).nullable().describe("1..n for kept candidates, null otherwise"),
  reason: z.string(),
});
export type Decision = z.infer<typeof DecisionSchema>;

export interface ScoredCandidate {
  candidate: Candidate;
  scores: Scores;
  /** The relevance model's view; absent when the rules rank (`--ranker rules`). */
  ranking?: Ranking;
}

function compareIds(a: string, b: string): number {
  // Code-unit order, not localeCompare: the ranking must not depend on the machine's locale.
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Ranking order: the relevance model's rank score when both have one, then total, REG FIT, research and
 * governance group scores (desc), then id (asc).
 */
export function compareScored(a: ScoredCandidate, b: ScoredCandidate): number {
  return (
    (b.ranking?.rank_score ?? 0) - (a.ranking?.rank_score ?? 0) ||
    b.scores.total - a.scores.total ||
    (b.scores.focus?.points ?? 0) - (a.scores.focus?.points ?? 0) ||
    b.scores.reg_fit.score - a.scores.reg_fit.score ||
    b.scores.groups.research - a.scores.groups.research ||
    b.scores.groups.governance - a.scores.groups.governance ||
    compareIds(a.candidate.id, b.candidate.id)
  );
}

/**
 * A decision for every candidate, in ranking order; at most `max_picks` are kept, ranked 1..n.
 * @example selectPicks(scored, DEFAULT_SELECTION).filter((d) => d.kept)
 */
export function selectPicks(scored: ReadonlyArray<ScoredCandidate>, policy: SelectionPolicy): Decision[] {
  const ranked = [...scored].sort(compareScored);
  const decisions: Decision[] = [];
  const spared = policy.floor_spares_top ?? 0;
  let kept = 0;
  ranked.forEach(({ candidate, scores, ranking }, position) => {
    const id = candidate.id;
    const refusal = refusalOf(scores, ranking, policy, position < spared && ranking !== undefined);
    if (refusal !== null) {
      decisions.push({ id, kept: false, rank: null, reason: refusal });
    } else if (kept >= policy.max_picks) {
      const by = ranking ? `, rank score ${ranking.rank_score.toFixed(2)}` : "";
      const reason = `cleared threshold (total ${scores.total}${by}) but over the daily maximum of ${policy.max_picks}`;
      decisions.push({ id, kept: false, rank: null, reason });
    } else {
      kept++;
      const by = ranking ? `rank score ${ranking.rank_score.toFixed(2)}, ` : "";
      // With no floor the rubric explains a pick and decides nothing: the reason says so, not ">= 0".
      const floor =
        spared > position && ranking
          ? ` spared the floor as the model's first`
          : hasFloor(policy)
            ? ` >= ${policy.min_total}`
            : `, REG FIT ${scores.reg_fit.score}, no floor`;
      decisions.push({
        id,
        kept: true,
        rank: kept,
        reason: `kept: ${by}total ${scores.total}${floor}, rank ${kept}`,
      });
    }
  });
  return decisions;
}

/** Whether `policy` turns candidates away by the rubric's total or REG FIT. */
export const hasFloor = (policy: SelectionPolicy): boolean => policy.min_total > 0 || policy.min_reg_fit > 1;

/** Why a candidate cannot be a pick under `policy`, or null when it can. */
function refusalOf(
  scores: Scores,
  ranking: Ranking | undefined,
  policy: SelectionPolicy,
  spared: boolean,
): string | null {
  const { total } = scores;
  const regFit = scores.reg_fit.score;
  if (!spared && total < policy.min_total) return `below threshold: total ${total} < ${policy.min_total}`;
  if (!spared && regFit < policy.min_reg_fit) {
    return `REG FIT ${regFit} < ${policy.min_reg_fit} (total ${total} >= ${policy.min_total})`;
  }
  const mustRead = ranking?.relevance.must_read;
  if (policy.min_must_read !== undefined && mustRead !== undefined && mustRead < policy.min_must_read) {
    return `must-read likelihood ${mustRead.toFixed(2)} < ${policy.min_must_read}`;
  }
  const onTopic = ranking?.relevance.on_topic;
  if (policy.min_on_topic !== undefined && onTopic !== undefined && onTopic < policy.min_on_topic) {
    return `on-topic probability ${onTopic.toFixed(2)} < ${policy.min_on_topic}`;
  }
  return null;
}
