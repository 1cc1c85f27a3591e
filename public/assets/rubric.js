// The published rubric (GET /v1/axes): the nine axes in their groups, what each level means, and
// REG FIT. Also the short lookup the picks and the leaderboard label their scores with.

import { el, replace } from "./dom.js";
import { GROUPS } from "./picks.js";

/** Axis names and REG FIT level names by id; ids alone when the rubric could not be loaded. */
export function rubricIndex(rubric) {
  const axes = {};
  for (const axis of rubric?.axes ?? []) axes[axis.id] = axis;
  const regFitNames = {};
  for (const level of rubric?.reg_fit?.levels ?? []) regFitNames[level.score] = level.name;
  return { axes, regFitNames, version: rubric?.version ?? null };
}

function axisCard(axis) {
  return el(
    "article",
    { className: "axis-card" },
    el("h4", {}, el("span", { className: "axis-id", text: axis.id }), ` ${axis.name}`),
    el("p", { className: "gist", text: axis.gist }),
    el(
      "details",
      {},
      el("summary", { text: "Definition and levels" }),
      el("p", { text: axis.definition }),
      el(
        "ol",
        { className: "levels", attrs: { start: 0 } },
        axis.levels.map((level) => el("li", {}, el("strong", { text: `${level.score}: ` }), level.meaning)),
      ),
      el("p", {
        className: "muted",
        text: `Signals: ${axis.signals.map((signal) => signal.label).join("; ")}.`,
      }),
    ),
  );
}

function regFitPart(regFit) {
  return [
    el("h3", { text: `${regFit.name}, 1 to 3` }),
    el("p", { text: regFit.question }),
    el(
      "ul",
      { className: "reg-levels" },
      regFit.levels.map((level) =>
        el(
          "li",
          { className: `regfit regfit-${level.score}` },
          el("strong", { text: `${level.score}: ${level.name}.` }),
          ` ${level.meaning}`,
        ),
      ),
    ),
    el(
      "details",
      {},
      el("summary", { text: "Frameworks and how the score is decided" }),
      el(
        "ul",
        {},
        regFit.frameworks.map((framework) =>
          el("li", {}, el("strong", { text: framework.name }), `: ${framework.looks_for}`),
        ),
      ),
      el("p", { text: regFit.decision.text }),
    ),
  ];
}

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

/** Fills the rubric section. */
export function renderRubric(nodes, rubric) {
  nodes.summary.textContent = `${rubric.summary} Rubric version ${rubric.version}.`;
  replace(
    nodes.groups,
    GROUPS.map((group) =>
      el(
        "section",
        { className: `rubric-group group-${group.id}`, attrs: { "aria-label": `${group.name} axes` } },
        el("h3", { text: `${group.name} (${group.axes[0]}–${group.axes.at(-1)})` }),
        rubric.axes.filter((axis) => axis.group === group.id).map(axisCard),
      ),
    ),
  );
  replace(nodes.regFit, regFitPart(rubric.reg_fit));
}
