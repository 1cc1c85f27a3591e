// The relevance model and the shipped selection judged as the issue asks: `picks eval --cross-validate
// --compare-selections` on the twelve released days, each day ranked by a model trained (settings and
// calibration chosen included) on the other eleven only, never on itself; then every way of choosing the
// picks chooses from that same ranking, and the rule is chosen inside the folds (on the other days'
// rankings by models that saw neither day) so the choice of rule is measured too. These are the figures
// the README, the model card and docs/curation.md report; the kept-back days are measured the same way.
import { describe, expect, it } from "vitest";
import { RANKED_SELECTION } from "../../pipeline/domain/selection.ts";
import { SHIPPABLE_CHOICE, SHIPPABLE_RULES } from "../../pipeline/domain/selection-comparison.ts";
import { LABELLED_DAYS, UNTUNED_DAYS } from "../helpers/curation.ts";
import { runPicks } from "../helpers/processes.ts";

const result = await runPicks([
  "eval",
  "--cross-validate",
  "--compare-selections",
  "--labels",
  ...LABELLED_DAYS.map((day) => day.labels),
  "--listing",
  ...LABELLED_DAYS.map((day) => day.listing),
  "--min-precision",
  "0.9",
  "--min-auc",
  "0.97",
  "--json",
]);
const report = JSON.parse(result.stdout);
type Day = {
  date: string;
  precision: number;
  top: number;
  top_possible: number;
  recall_top10: number;
  auc: number;
  auc_on_topic: number;
};
type RuleDay = { date: string; precision: number | null; top: number; picks: number; top_possible: number };
type Rule = { name: string; policy: unknown; top: number; precise: boolean; days: RuleDay[] };
type Nested = { name: string; rules: string[]; top: number; days: Array<RuleDay & { rule: string }> };
const days: Day[] = report.days;
const rules: Rule[] = report.selection_comparison.rules;
const nested: Nested[] = report.selection_comparison.nested;
const shippedChoice = nested.find((item) => item.name === SHIPPABLE_CHOICE) as Nested;

/**
 * The targets, and where a day misses one, the figure it holds (docs/curation.md says why: the
 * must-reads of those days sit among on-topic agent papers the experts kept at 1).
 */
const TARGET = { recall10: 0.6, aucOnTopic: 0.95 };
const HELD: Record<string, { top?: number; recall10?: number; aucOnTopic?: number }> = {
  "2026-02-11": { top: 2, recall10: 0.5, aucOnTopic: 0.925 },
  "2026-03-11": { aucOnTopic: 0.94 },
  "2026-03-25": { top: 2, recall10: 0.5 },
  "2026-04-22": { aucOnTopic: 0.949 },
  "2026-05-20": { recall10: 0.55 },
  "2026-06-03": { recall10: 0.44 },
  "2026-06-12": { recall10: 0.58 },
  "2026-07-01": { top: 2, recall10: 0.44 },
};

describe("picks eval --cross-validate on the twelve released days", () => {
  it("evaluates every day by a model that never saw it, and passes the precision and AUC gates", () => {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(report.ranker).toMatch(/leave one day out/);
    expect(days.map((day) => day.date)).toEqual(LABELLED_DAYS.map((day) => day.date));
  });

  it.each(
    LABELLED_DAYS.map((day) => day.date),
  )("%s: precision >= 0.9 with the shipped selection and with the rule chosen in the folds; AUC (2 vs 0) >= 0.97", (date) => {
    const day = days.find((item) => item.date === date) as Day;
    const chosen = shippedChoice.days.find((item) => item.date === date) as RuleDay;
    expect(day.precision).toBeGreaterThanOrEqual(0.9);
    expect(chosen.precision).toBeGreaterThanOrEqual(0.9);
    expect(chosen.picks).toBeGreaterThan(0);
    expect(day.auc).toBeGreaterThanOrEqual(0.97);
  });

  it.each(
    LABELLED_DAYS.map((day) => day.date),
  )("%s: top picks, recall@10 and AUC on-topic at the target, or at the figure stated where missed", (date) => {
    const day = days.find((item) => item.date === date) as Day;
    const chosen = shippedChoice.days.find((item) => item.date === date) as RuleDay;
    const held = HELD[date] ?? {};
    expect(chosen.top).toBeGreaterThanOrEqual(held.top ?? chosen.top_possible);
    expect(day.recall_top10).toBeGreaterThanOrEqual(held.recall10 ?? TARGET.recall10);
    expect(day.auc_on_topic).toBeGreaterThanOrEqual(held.aucOnTopic ?? TARGET.aucOnTopic);
  });

  it("publishes as many must-reads in all as measured (34 of the 36 the days allow at three a day)", () => {
    expect(shippedChoice.top).toBeGreaterThanOrEqual(34);
    const met = shippedChoice.days.filter((day) => day.top >= day.top_possible).length;
    expect(met).toBeGreaterThanOrEqual(LABELLED_DAYS.length - 3);
  });
});

describe("the shipped selection, chosen among the ways of choosing picks by the same measure", () => {
  const rule = (name: string) => rules.find((item) => item.name === name) as Rule;
  const sum = (item: Rule, wanted: (date: string) => boolean) =>
    item.days.filter((day) => wanted(day.date)).reduce((total, day) => total + day.top, 0);
  const untuned = (date: string) => (UNTUNED_DAYS as readonly string[]).includes(date);
  const tuned = (date: string) => !untuned(date);

  it("is the rule that the shippable rules' comparison chooses, and no fold chose a REG FIT gate", () => {
    const shipped = rules.find((item) => JSON.stringify(item.policy) === JSON.stringify(RANKED_SELECTION));
    expect(shipped?.name).toBe(SHIPPABLE_RULES[0]?.name);
    expect(report.selection_comparison.best).toBe(shipped?.name);
    expect(shipped?.precise).toBe(true);
    for (const other of rules.filter((item) => SHIPPABLE_RULES.some((s) => s.name === item.name))) {
      if (other.precise) expect(other.top, other.name).toBeLessThanOrEqual(shipped?.top as number);
    }
    expect(shippedChoice.rules).toEqual(SHIPPABLE_RULES.map((item) => item.name));
  });

  it("stops gating on REG FIT: the floor publishes more must-reads only on the days the rubric was tuned on", () => {
    const floor = rule("rubric floor (total 6, REG FIT 2)");
    const none = rule("no floor (the six best-ranked)");
    expect(sum(floor, tuned)).toBeGreaterThan(sum(none, tuned));
    expect(sum(floor, untuned)).toBeLessThan(sum(none, untuned));
    // And where it was never tuned it let an off-mission paper in; no floor did not.
    const worst = (item: Rule) =>
      Math.min(...item.days.filter((day) => untuned(day.date)).map((day) => day.precision ?? 1));
    expect(worst(floor)).toBeLessThan(1);
    expect(worst(none)).toBe(1);
    // Chosen in the folds among every rule, a REG FIT gate gains nothing on the untuned days either.
    const every = nested.find((item) => item.name !== SHIPPABLE_CHOICE) as Nested;
    const untunedTop = (item: Nested) =>
      item.days.filter((day) => untuned(day.date)).reduce((total, day) => total + day.top, 0);
    expect(untunedTop(every)).toBeLessThanOrEqual(untunedTop(shippedChoice));
  });

  it("measures the thin-day rules and ships none: they raise no day's precision and publish no more must-reads", () => {
    const none = rule("no floor (the six best-ranked)");
    const thin = rules.filter(
      (item) => /likelihood|on-topic head/.test(item.name) && !/floor/.test(item.name),
    );
    expect(thin.length).toBeGreaterThanOrEqual(4);
    for (const item of thin) {
      expect(item.top, item.name).toBeLessThanOrEqual(none.top);
      item.days.forEach((day, index) => {
        expect(day.precision ?? 1, `${item.name} ${day.date}`).toBeLessThanOrEqual(
          none.days[index]?.precision ?? 1,
        );
      });
    }
  });
});
