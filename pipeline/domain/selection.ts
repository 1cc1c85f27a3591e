import { z } from "zod";
import type { Candidate } from "./candidate.ts";
import type { Ranking } from "./relevance-model.ts";
import type { Scores } from "./score.ts";

/** Which scored candidates become the day's picks. */
export const SelectionPolicySchema = z.object({
  min_total: z.int().min(0).max(45).describe("lowest total (0..45) a pick may have"),
  min_reg_fit: z.int().min(1).max(3).describe("lowest REG FIT a pick may have"),
  max_picks: z.int().min(0).describe("at most this many picks a day"),
});
export type SelectionPolicy = z.infer<typeof SelectionPolicySchema>;

/** Calibrated on real announcement days (250 candidates) to keep about five, ranked by the rubric's total. */
export const DEFAULT_SELECTION: SelectionPolicy = { min_total: 13, min_reg_fit: 2, max_picks: 6 };

/**
 * With the relevance model ranking, the rubric is the floor, not the judge: must-reads on the labelled
 * days score totals as low as 3, so the floor is lower and the model's order decides among what clears it.
 */
export const RANKED_SELECTION: SelectionPolicy = { min_total: 6, min_reg_fit: 2, max_picks: 6 };

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
  let kept = 0;
  for (const { candidate, scores, ranking } of ranked) {
    const { total } = scores;
    const regFit = scores.reg_fit.score;
    const id = candidate.id;
    if (total < policy.min_total) {
      decisions.push({
        id,
        kept: false,
        rank: null,
        reason: `below threshold: total ${total} < ${policy.min_total}`,
      });
    } else if (regFit < policy.min_reg_fit) {
      const reason = `REG FIT ${regFit} < ${policy.min_reg_fit} (total ${total} >= ${policy.min_total})`;
      decisions.push({ id, kept: false, rank: null, reason });
    } else if (kept >= policy.max_picks) {
      const by = ranking ? `, rank score ${ranking.rank_score.toFixed(2)}` : "";
      const reason = `cleared threshold (total ${total}${by}) but over the daily maximum of ${policy.max_picks}`;
      decisions.push({ id, kept: false, rank: null, reason });
    } else {
      kept++;
      const by = ranking ? `rank score ${ranking.rank_score.toFixed(2)}, ` : "";
      decisions.push({
        id,
        kept: true,
        rank: kept,
        reason: `kept: ${by}total ${total} >= ${policy.min_total}, rank ${kept}`,
      });
    }
  }
  return decisions;
}
