// The ranker card (GET /v1/ranker) in the rubric section: what orders the candidates, what the
// relevance model learned from, how it scored on days it did not see, and what it cannot see.
// Loaded when the rubric section is reached.

import { el, replace } from "./dom.js";

const figure = (value, digits = 2) => (value === null || value === undefined ? "n/a" : value.toFixed(digits));

/** The ranker card (GET /v1/ranker): what orders the candidates, what it learned from, how it scored. */
export function renderRanker(node, card) {
  if (card.ranker === "rules") {
    replace(node, [
      el("h3", { text: "The ranking" }),
      el("p", { text: "Candidates are ordered by the rubric's total, then REG FIT: no learned model." }),
    ]);
    return;
  }
  replace(node, [
    el("h3", { text: `The ranking: relevance model ${card.model_version}` }),
    el("p", {
      text:
        "A model trained on expert-labelled days orders the candidates; the rubric is the floor each pick " +
        `must clear and the explanation of its scores. ${card.rank_score}.`,
    }),
    el("p", { className: "muted", text: `Features: ${card.features}.` }),
    el(
      "div",
      { className: "table-scroll" },
      el(
        "table",
        { className: "ranker-figures" },
        el("caption", {
          text: "Each training day measured by a model trained on the other days (leave one day out)",
        }),
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            ["Day", "Papers", "Must-reads", "Recall@10", "AUC", "AUC on-topic"].map((name) =>
              el("th", { attrs: { scope: "col" }, text: name }),
            ),
          ),
        ),
        el(
          "tbody",
          {},
          card.cross_validation.map((day) =>
            el(
              "tr",
              {},
              el("th", { attrs: { scope: "row" }, text: day.date }),
              [
                day.papers,
                day.top_labels,
                figure(day.recall_top10),
                figure(day.auc, 3),
                figure(day.auc_on_topic, 3),
              ].map((value) => el("td", { text: String(value) })),
            ),
          ),
        ),
      ),
    ),
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
