// The ranker card (GET /v1/ranker) in the rubric section: what orders the candidates, what the
// relevance model learned from, how it scored on days it did not see, and what it cannot see.
// Loaded when the rubric section is reached.

import { el, replace } from "./dom.js";

const figure = (value, digits = 2) => (value === null || value === undefined ? "n/a" : value.toFixed(digits));

/** 0.851 as "85.1%"; an empty bin's null as "n/a". */
const percent = (value) => (value === null || value === undefined ? "n/a" : `${(value * 100).toFixed(1)}%`);

/** A table with a caption, column headers, and rows whose first cell heads the row. */
function figureTable(caption, columns, rows) {
  return el(
    "div",
    { className: "table-scroll" },
    el(
      "table",
      { className: "ranker-figures" },
      el("caption", { text: caption }),
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          columns.map((name) => el("th", { attrs: { scope: "col" }, text: name })),
        ),
      ),
      el(
        "tbody",
        {},
        rows.map(([head, ...cells]) =>
          el(
            "tr",
            {},
            el("th", { attrs: { scope: "row" }, text: head }),
            cells.map((value) => el("td", { text: String(value) })),
          ),
        ),
      ),
    ),
  );
}

/** How the rank score becomes the must-read likelihood, and how well that holds on days left out. */
function calibrationBlock(calibration) {
  if (!calibration) return null;
  return el(
    "div",
    { className: "ranker-calibration" },
    el("h4", { text: "The must-read likelihood, and how far to trust it" }),
    el("p", {
      text:
        "The rank score orders the day; the must-read likelihood says what it means: the chance that an " +
        `expert would call the paper a must-read. It is fitted by Platt scaling (${calibration.rule}, ` +
        `slope ${figure(calibration.slope, 3)}, intercept ${figure(calibration.intercept, 3)}) on ` +
        `${calibration.fitted_on} papers, each scored by a model that had not seen its day.`,
    }),
    figureTable(
      "Reliability: each day's papers given a likelihood by a fit on the other days, pooled into bins",
      ["Likelihood", "Papers", "Mean likelihood", "Must-reads observed"],
      calibration.reliability.map((bin) => [
        `${Math.round(bin.from * 100)}% to ${Math.round(bin.to * 100)}%`,
        bin.papers,
        percent(bin.mean_predicted),
        percent(bin.observed),
      ]),
    ),
    el("p", {
      className: "ranker-ece",
      text:
        `Expected calibration error: ${figure(calibration.ece, 3)}. Weighted by how many papers each bin ` +
        `holds, the likelihood and the share of must-reads observed differ by ` +
        `${(calibration.ece * 100).toFixed(1)} percentage points on average.`,
    }),
  );
}

/** The gate's outcome in words; `slack` is how many must-reads a day may lose (absent on older cards). */
function decisionText(decision, slack) {
  const perDay = slack ? ` (any one day may lose at most ${slack === 1 ? "one" : slack})` : " on any day";
  switch (decision) {
    case "first model":
      return "the first model: before it, the rubric's total ordered the candidates";
    case "no worse":
      return (
        "over the same labelled days it published as many must-reads and found as many in its " +
        `first ten${perDay}, with its mean AUC on-topic within the tolerance`
      );
    case "promoted anyway":
      return "promoted by the operator over the gate (--promote-anyway)";
    case "not promoted":
      return "measured worse than the model it replaced";
    default:
      return decision;
  }
}

/** The model this one replaced, and the comparison that let it (or the operator) promote it. */
function promotionBlock(promotion) {
  if (!promotion) return null;
  const { replaced, decision, tolerance, mean_auc_on_topic: mean, days, worse } = promotion;
  const outcome = decisionText(decision, promotion.day_slack);
  const both = mean.candidate !== null && mean.current !== null;
  return el(
    "div",
    { className: "ranker-promotion" },
    el("h4", { text: "What it replaced" }),
    el("p", {
      text:
        (replaced === null ? `It is ${outcome}.` : `It replaced ${replaced}: ${outcome}.`) +
        (both
          ? ` Mean AUC on-topic ${figure(mean.candidate, 3)} against ${figure(mean.current, 3)} ` +
            `(allowed to fall by at most ${tolerance}).`
          : ""),
    }),
    days.length
      ? figureTable(
          `Day by day: this model vs ${replaced ?? "the one before"}`,
          ["Day", "Must-reads picked", "In the first ten", "AUC on-topic", "Measured"],
          days.map((day) => [
            day.date,
            `${day.candidate.top} vs ${day.current.top}`,
            // Older cards have recall@10 only; newer ones the count of must-reads in the first ten.
            day.candidate.top10 === undefined
              ? `recall ${figure(day.candidate.recall_top10)} vs ${figure(day.current.recall_top10)}`
              : `${day.candidate.top10} vs ${day.current.top10}`,
            `${figure(day.candidate.auc_on_topic, 3)} vs ${figure(day.current.auc_on_topic, 3)}`,
            day.candidate.measured === day.current.measured
              ? day.candidate.measured
              : `${day.candidate.measured} vs ${day.current.measured}`,
          ]),
        )
      : null,
    worse.length
      ? [
          el("p", { text: "What the comparison found:" }),
          el(
            "ul",
            { className: "ranker-worse" },
            worse.map((line) => el("li", { text: line })),
          ),
        ]
      : null,
  );
}

/** A day's precision and must-reads picked, as "1.00, 2 of 2". */
const pickedText = (day, possible) =>
  `${figure(day.precision)}, ${day.top} of ${possible ?? day.top}${day.picks === 6 ? "" : ` (${day.picks} picks)`}`;

/**
 * How sure the picks are: each day measured nested (model, settings, calibration and selection rule all
 * chosen without it), then every selection rule compared on the same held-out rankings.
 */
function nestedBlock(nested) {
  if (!nested) return null;
  const days = nested.days;
  const total = (pick) => days.reduce((sum, day) => sum + pick(day), 0);
  const met = days.filter((day) => day.top >= day.top_possible).length;
  const shipped = nested.selection.filter((rule) => !rule.gates_on_reg_fit);
  const gated = nested.selection.filter((rule) => rule.gates_on_reg_fit);
  return el(
    "div",
    { className: "ranker-nested" },
    el("h4", { text: "How sure the picks are, on days it never saw" }),
    el("p", { text: nested.how }),
    el("p", {
      text:
        `Over ${days.length} days: ${total((day) => day.top)} must-reads picked of ` +
        `${total((day) => day.top_labels)}, at least min(3, the day's must-reads) on ${met} of ${days.length} ` +
        `days; the lowest day's precision ${figure(Math.min(...days.map((day) => day.precision ?? 1)))}.`,
    }),
    figureTable(
      "Each day: picks by the rule chosen on the other days, ranking by a model that never saw it",
      ["Day", "Must-reads", "Precision, must-reads picked", "Recall@10", "AUC", "AUC on-topic", "Rule"],
      days.map((day) => [
        day.date,
        day.top_labels,
        pickedText(day, day.top_labels),
        figure(day.recall_top10),
        figure(day.auc, 3),
        figure(day.auc_on_topic, 3),
        day.rule,
      ]),
    ),
    figureTable(
      "Ways of choosing the picks from the same held-out ranking: must-reads published over the days",
      ["Rule", "Must-reads", "Lowest precision", "Days meeting min(3, must-reads)", "Gates on REG FIT"],
      [...shipped, ...gated].map((rule) => [
        rule.rule,
        rule.top,
        figure(rule.min_precision),
        `${rule.days_top_met} of ${rule.days.length}`,
        rule.gates_on_reg_fit ? "yes: measured, not chosen" : "no",
      ]),
    ),
  );
}

/** The ranker card (GET /v1/ranker): what orders the candidates, what it learned from, how it scored. */
export function renderRanker(node, card) {
  if (card.ranker === "rules") {
    replace(node, [
      el("h3", { text: "The ranking" }),
      el("p", { text: "Candidates are ordered by the rubric's total, then REG FIT: no learned model." }),
    ]);
    return;
  }
  const orders = card.calibration
    ? "orders the candidates by must-read likelihood, the calibrated chance that an expert would call a " +
      "paper a must-read"
    : "orders the candidates";
  replace(node, [
    el("h3", { text: `The ranking: relevance model ${card.model_version}` }),
    el("p", {
      text:
        `A model trained on expert-labelled days ${orders}` +
        (card.nested
          ? " and chooses the picks. The rubric explains them (its axis evidence and REG FIT) and no longer turns one away. "
          : ". The rubric is the floor each pick must clear and the explanation of its scores. ") +
        `${card.rank_score}.`,
    }),
    el("p", { className: "muted", text: `Features: ${card.features}.` }),
    nestedBlock(card.nested),
    figureTable(
      "Each training day measured by a model trained on the other days (leave one day out, settings chosen on the same days)",
      ["Day", "Papers", "Must-reads", "Recall@10", "AUC", "AUC on-topic"],
      card.cross_validation.map((day) => [
        day.date,
        day.papers,
        day.top_labels,
        figure(day.recall_top10),
        figure(day.auc, 3),
        figure(day.auc_on_topic, 3),
      ]),
    ),
    calibrationBlock(card.calibration),
    promotionBlock(card.promotion),
    el(
      "details",
      {},
      el("summary", { text: "What it cannot see" }),
      el(
        "ul",
        {},
        card.limits.map((limit) => el("li", { text: limit })),
      ),
    ),
  ]);
}
