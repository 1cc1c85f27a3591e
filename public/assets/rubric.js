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
