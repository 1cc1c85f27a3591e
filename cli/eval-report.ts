// `picks eval` for people: one block per labelled day, then the overall line. `--json` prints the report
// itself instead.

import { basename } from "node:path";
import type { GateMiss, Mistake } from "../pipeline/domain/evaluation.ts";
import { MIN_RULE_PRECISION, type SelectionComparison } from "../pipeline/domain/selection-comparison.ts";
import { dayName, type EvalReport, type EvaluatedDay } from "../pipeline/evaluate.ts";
import type { Output } from "./output.ts";

const share = (value: number | null, digits = 2): string => (value === null ? "n/a" : value.toFixed(digits));

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

const METRIC: Record<GateMiss["metric"], { name: string; flag: string }> = {
  precision: { name: "precision", flag: "--min-precision" },
  auc: { name: "AUC", flag: "--min-auc" },
  recall_top10: { name: "recall@10", flag: "--min-recall10" },
  auc_on_topic: { name: "AUC on-topic", flag: "--min-auc-on-topic" },
};

const rankOf = (item: { rank_score?: number }) =>
  item.rank_score === undefined ? "" : `  rank score ${item.rank_score.toFixed(2)}`;

/** `2025-11-19: precision 0.500 is below --min-precision 0.9`. */
export function describeMiss(miss: GateMiss): string {
  const { name, flag } = METRIC[miss.metric];
  return `${miss.day}: ${name} ${share(miss.value, 3)} is below ${flag} ${miss.bound}`;
}

function printMistake(out: Output, mistake: Mistake): void {
  out.line(
    `    #${mistake.rank} ${mistake.id}${rankOf(mistake)}  total ${mistake.total}  REG FIT ${mistake.reg_fit}` +
      `  ${mistake.kept ? "KEPT" : "not kept"}  ${clip(mistake.title, 70)}`,
  );
  const first = mistake.evidence[0];
  const more = mistake.evidence.length > 1 ? ` (+${mistake.evidence.length - 1} more)` : "";
  out.line(
    first
      ? `      ${first.axis} ${first.signal}: "${clip(first.text, 90)}"${more}`
      : "      no rubric signal fired",
  );
  if (mistake.why_ranked && mistake.why_ranked.length > 0) {
    out.line(`      ranked up by: ${mistake.why_ranked.map((reason) => reason.term).join(", ")}`);
  }
}

function printDay(out: Output, day: EvaluatedDay): void {
  const rows = [
    day.duplicates > 0 ? `${day.duplicates} repeated ids counted once` : "",
    day.skipped > 0 ? `${day.skipped} malformed rows skipped` : "",
  ].filter(Boolean);
  out.line(`${dayName(day)}  labels ${basename(day.labels_file)}, listing ${basename(day.listing)}`);
  out.line(
    `  screened ${day.screened} (labelled ${day.labelled}, unlabelled ${day.unlabelled}` +
      `${rows.length > 0 ? `; ${rows.join(", ")}` : ""}); labels: ${day.label_counts.top} top,` +
      ` ${day.label_counts.on_topic} on topic, ${day.label_counts.off_mission} off mission`,
  );
  if (day.scoring.scorer === "llm") {
    out.line(
      `  judge ${day.scoring.model}: ${day.scoring.llm_scored} scored (${day.scoring.cache_hits} cached),` +
        ` ${day.scoring.fallbacks.length} fell back to the rules`,
    );
  }
  out.line(`  picks (${day.picks.length}):`);
  for (const pick of day.picks) {
    out.line(
      `    ${pick.rank}. ${pick.id}${rankOf(pick)}  total ${pick.total}  label ${pick.label ?? "-"}  ${clip(pick.title, 70)}`,
    );
  }
  out.line(
    `  precision ${share(day.precision)} (${day.on_topic_picks} of ${day.labelled_picks} labelled picks on topic),` +
      ` top ${day.top}/${day.top_possible}, recall@10 ${share(day.recall_top10)},` +
      ` AUC ${share(day.auc, 3)}, AUC on-topic ${share(day.auc_on_topic, 3)}`,
  );
  if (day.labels_not_in_listing.length > 0) {
    const ids = day.labels_not_in_listing;
    out.line(
      `  ${ids.length} labelled ids not in the listing (ignored): ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}`,
    );
  }
  if (day.false_positives.length > 0) out.line("  false positives (label 0, highest ranked):");
  for (const mistake of day.false_positives) printMistake(out, mistake);
  if (day.misses.length > 0) out.line("  misses (label 2, lowest ranked):");
  for (const mistake of day.misses) printMistake(out, mistake);
}

/** One line a rule: its must-reads and lowest precision, then each day's precision and must-reads. */
function printComparison(out: Output, comparison: SelectionComparison): void {
  out.line("");
  out.line("ways of choosing the picks from the same ranking (precision, must-reads picked of the day's):");
  for (const rule of comparison.rules) {
    const days = rule.days.map((day) => `${day.date} ${share(day.precision)} ${day.top}/${day.must_reads}`);
    const mark = rule.name === comparison.best ? "*" : " ";
    out.line(
      `${mark} ${rule.name}: ${rule.top} must-reads, lowest precision ${share(rule.min_precision)},` +
        ` top picks met on ${rule.days_top_met} of ${rule.days.length} days`,
    );
    out.line(`    ${days.join("  ")}`);
  }
  out.line(
    comparison.best === null
      ? `no rule kept precision >= ${MIN_RULE_PRECISION} on every day`
      : `* most must-reads with precision >= ${MIN_RULE_PRECISION} on every day, among the rules that do not gate on REG FIT: ${comparison.best}`,
  );
  for (const nested of comparison.nested ?? []) {
    out.line("");
    out.line(
      `the rule chosen inside the folds from ${nested.name} (on the other days, then applied to the day):` +
        ` ${nested.top} must-reads, lowest precision ${share(nested.min_precision)},` +
        ` top picks met on ${nested.days_top_met} of ${nested.days.length} days`,
    );
    for (const day of nested.days) {
      out.line(`    ${day.date} ${share(day.precision)} ${day.top}/${day.must_reads}  ${day.rule}`);
    }
  }
}

export function printEvalReport(out: Output, report: EvalReport): void {
  out.line(
    `rubric ${report.rubric_version}, scorer ${report.scorer}${report.model ? ` (${report.model})` : ""},` +
      ` ranker ${report.ranker},` +
      ` selection: total >= ${report.selection.min_total}, REG FIT >= ${report.selection.min_reg_fit},` +
      ` at most ${report.selection.max_picks}`,
  );
  for (const day of report.days) {
    out.line("");
    printDay(out, day);
  }
  const all = report.overall;
  out.line("");
  out.line(
    `overall: ${all.days} days, ${all.picks} picks, precision ${share(all.precision)}` +
      ` (${all.on_topic_picks} of ${all.labelled_picks}), top ${all.top}/${all.top_possible},` +
      ` recall@10 mean ${share(all.recall_top10_mean)}, AUC mean ${share(all.auc_mean, 3)}` +
      ` (min ${share(all.auc_min, 3)}), AUC on-topic mean ${share(all.auc_on_topic_mean, 3)}` +
      ` (min ${share(all.auc_on_topic_min, 3)})`,
  );
  if (report.selection_comparison) printComparison(out, report.selection_comparison);
  out.json(report);
}
