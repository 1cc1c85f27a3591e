// One day's picks: each paper with its nine axis scores as bars in their three groups, REG FIT, the
// citation figures when the day has them, the evidence behind every score, and links to arXiv.

import { el, externalLink, formatTime, replace } from "./dom.js";

export const GROUPS = [
  { id: "substrate", name: "Substrate", axes: ["A1", "A2", "A3"] },
  { id: "governance", name: "Governance", axes: ["A4", "A5", "A6"] },
  { id: "research", name: "Research", axes: ["A7", "A8", "A9"] },
];

const SOURCES = { semantic_scholar: "Semantic Scholar", openalex: "OpenAlex" };

/** Text for screen readers only: "out of 5" after a figure the eye reads as "/5". */
const outOf = (max) => [
  el("span", { className: "visually-hidden", text: ` out of ${max}` }),
  el("span", { attrs: { "aria-hidden": "true" }, text: `/${max}` }),
];

const score = (value, max) => el("span", { className: "value" }, String(value), ...outOf(max));

function axisBar(id, value, rubric) {
  const name = rubric.axes[id]?.name ?? id;
  return el(
    "li",
    { className: "axis-row" },
    el("span", { className: "axis-label" }, el("span", { className: "axis-id", text: id }), ` ${name}`),
    el(
      "span",
      { className: "bar", attrs: { "aria-hidden": "true" } },
      el("span", { className: "fill", data: { score: value } }),
    ),
    score(value, 5),
  );
}

function axisGroups(pick, rubric) {
  return el(
    "div",
    { className: "axis-groups" },
    GROUPS.map((group) =>
      el(
        "div",
        { className: `axis-group group-${group.id}` },
        el("h3", {}, `${group.name} `, score(pick.scores.groups[group.id], 15)),
        el(
          "ul",
          { className: "bars" },
          group.axes.map((id) => axisBar(id, pick.scores.axes[id]?.score ?? 0, rubric)),
        ),
      ),
    ),
  );
}

function evidenceList(evidence) {
  return el(
    "ul",
    { className: "evidence-list" },
    evidence.map((item) =>
      el("li", {}, el("code", { text: item.signal }), " ", el("q", { text: item.text })),
    ),
  );
}

/** 0.9269 as "93%": a whole percent, never 0% or 100%, a certainty the model does not have. */
export function likelihoodText(value) {
  const percent = Math.round(value * 100);
  return percent < 1 ? "<1%" : percent > 99 ? ">99%" : `${percent}%`;
}

/** Undefined on a day the rules ranked, or the model before calibration. */
const mustReadOf = (pick) => pick.relevance?.must_read ?? undefined;

/** Why it stands where it does, one click away: likelihood, the model's heads, the words that raised it. */
function rankedDetails(pick) {
  const { relevance, why_ranked: why } = pick;
  if (!why?.length || !relevance) return null;
  const mustRead = mustReadOf(pick);
  const heads = [`${relevance.on_topic.toFixed(2)} on topic`, `${relevance.top.toFixed(2)} must-read`];
  if (relevance.regulated !== undefined)
    heads.push(`${relevance.regulated.toFixed(2)} fit for regulated settings`);
  return el(
    "details",
    { className: "why-ranked" },
    el("summary", { text: `Why it ranks #${pick.rank}` }),
    mustRead === undefined
      ? null
      : el("p", {
          text:
            `Must-read likelihood ${likelihoodText(mustRead)}: the chance that an expert would call it a ` +
            "must-read, from the model's rank score calibrated on expert-labelled days.",
        }),
    el("p", {
      text: `The relevance model's heads score it ${heads.join(", ").replace(/, (?=[^,]*$)/, " and ")}; the rank score combines them.`,
    }),
    el(
      "p",
      {},
      "Words that raised it most: ",
      why.flatMap((reason, i) => [i ? ", " : "", el("code", { text: reason.term })]),
      ".",
    ),
  );
}

function whyDetails(pick, rubric) {
  const { axes, reg_fit: regFit } = pick.scores;
  const parts = GROUPS.flatMap((group) => group.axes)
    .filter((id) => (axes[id]?.evidence ?? []).length > 0)
    .map((id) => [
      el("h4", {}, `${id} ${rubric.axes[id]?.name ?? ""}: `, score(axes[id].score, 5)),
      evidenceList(axes[id].evidence),
    ]);
  return el(
    "details",
    { className: "why" },
    el("summary", { text: "Why these scores" }),
    el("p", {
      className: "muted",
      text: `Scored by the ${pick.scores.scorer} scorer, rubric ${pick.scores.rubric_version}.`,
    }),
    parts.length ? parts : el("p", { text: "No axis signal fired for this paper." }),
    el("h4", {}, "REG FIT: ", score(regFit.score, 3)),
    el("p", { text: regFit.rationale }),
    regFit.evidence.length ? evidenceList(regFit.evidence) : null,
  );
}

function linkedPapers(title, papers) {
  if (!papers?.length) return null;
  return el(
    "details",
    { className: "linked" },
    el("summary", { text: `${title} (${papers.length})` }),
    el(
      "ol",
      {},
      papers.map((paper) => {
        const figures = [
          paper.year,
          paper.citation_count === null ? null : `${paper.citation_count} citations`,
        ]
          .filter((part) => part !== null && part !== undefined)
          .join(", ");
        const name = paper.title ?? paper.arxiv_id ?? "untitled";
        return el("li", {}, externalLink(paper.url, name), figures ? ` (${figures})` : "");
      }),
    ),
  );
}

const pickLinks = (label, ids) =>
  ids?.length
    ? el(
        "p",
        {},
        `${label}: `,
        ids.flatMap((id, i) => [i ? ", " : "", externalLink(`https://arxiv.org/abs/${id}`, id)]),
      )
    : null;

/** `sample figures written for the demonstration ...; written 2026-11-21`: what a pick's replayed figures are. */
export const illustrativeLabel = (figures) => `${figures.note}; written ${figures.written_at}`;

/** The citation figures of a pick: found (with source and date), missing (with why), or not looked up. */
export function citationsBlock(citations) {
  if (!citations) {
    return el("p", {
      className: "citations muted",
      text: "Citation figures were not looked up for this day.",
    });
  }
  if (citations.status === "missing") {
    return el("p", {
      className: "citations muted",
      text: `No citation figures: ${citations.reason} (checked ${formatTime(citations.checked_at)}).`,
    });
  }
  const influential =
    citations.influential_citation_count === null
      ? null
      : `${citations.influential_citation_count} influential`;
  return el(
    "div",
    { className: "citations" },
    el(
      "p",
      { className: "cite-figures" },
      el("strong", { text: String(citations.citation_count) }),
      " citations",
      influential ? ` · ${influential}` : "",
      ` · ${citations.reference_count} references `,
      el("span", {
        className: "muted",
        // Replayed figures say so: the sample's are written for the demonstration, not looked up.
        text: citations.illustrative
          ? `(${illustrativeLabel(citations.illustrative)})`
          : `(${SOURCES[citations.source] ?? citations.source}, ${formatTime(citations.fetched_at)})`,
      }),
    ),
    pickLinks("Cites other picks", citations.cites_picks),
    pickLinks("Cited by other picks", citations.cited_by_picks),
    linkedPapers("Most-cited citing papers", citations.top_citing),
    linkedPapers("Top references", citations.top_references),
  );
}

function authorsLine(authors) {
  if (authors.length <= 6) return authors.join(", ");
  return `${authors.slice(0, 6).join(", ")} and ${authors.length - 6} more`;
}

/** One pick as a list item. */
export function pickItem(pick, rubric) {
  const titleId = `pick-${pick.date}-${pick.rank}`;
  const regName = rubric.regFitNames[pick.scores.reg_fit.score] ?? "";
  return el(
    "li",
    { className: "pick", data: { arxivId: pick.arxiv_id } },
    el(
      "article",
      { attrs: { "aria-labelledby": titleId } },
      el("p", { className: "rank", text: `#${pick.rank}` }),
      el("h2", { attrs: { id: titleId } }, externalLink(pick.abs_url, pick.title)),
      el("p", { className: "byline muted", text: authorsLine(pick.authors) }),
      el(
        "div",
        { className: "headline" },
        mustReadOf(pick) === undefined
          ? null
          : el(
              "p",
              { className: "likelihood" },
              el("span", { className: "big", text: likelihoodText(mustReadOf(pick)) }),
              " must-read likelihood",
            ),
        el(
          "p",
          { className: "total" },
          el("span", { className: "big", text: String(pick.scores.total) }),
          ...outOf(45),
          " total",
        ),
        el(
          "p",
          { className: `regfit regfit-${pick.scores.reg_fit.score}` },
          "REG FIT ",
          el("strong", {}, score(pick.scores.reg_fit.score, 3)),
          regName ? ` ${regName}` : "",
        ),
      ),
      rankedDetails(pick),
      axisGroups(pick, rubric),
      el("p", { className: "summary", text: pick.summary }),
      citationsBlock(pick.citations),
      whyDetails(pick, rubric),
      el(
        "p",
        { className: "links" },
        externalLink(pick.abs_url, "arXiv abstract"),
        " · ",
        externalLink(pick.pdf_url, "PDF"),
        " · ",
        el("span", { className: "muted", text: `arXiv:${pick.arxiv_id} · ${pick.categories.join(", ")}` }),
      ),
    ),
  );
}

/** Fills the list with a day's picks, or says that none cleared the threshold. */
export function renderPicks(list, day, rubric) {
  if (day.picks.length === 0) {
    replace(
      list,
      el("li", { className: "notice notice-empty", text: "No paper cleared the threshold on this day." }),
    );
    return;
  }
  replace(
    list,
    [...day.picks].sort((a, b) => a.rank - b.rank).map((pick) => pickItem(pick, rubric)),
  );
}

/** What a day's selection asks of a pick, in words. */
function thresholdText(selection) {
  const { min_must_read: mustRead, min_on_topic: onTopic, floor_spares_top: spared } = selection;
  return [
    hasFloor(selection)
      ? `total at least ${selection.min_total} and REG FIT at least ${selection.min_reg_fit}`
      : "no rubric floor",
    spared ? `the model's first ${spared} spared that floor` : "",
    mustRead === undefined ? "" : `must-read likelihood at least ${likelihoodText(mustRead)}`,
    onTopic === undefined ? "" : `on-topic probability at least ${onTopic}`,
    `at most ${selection.max_picks}`,
  ]
    .filter(Boolean)
    .join("; ");
}

/** Whether a day's selection turns papers away by the rubric's total or REG FIT. */
const hasFloor = (selection) => selection.min_total > 0 || selection.min_reg_fit > 1;

/**
 * Says once, above the list, what orders the picks: text with a link to the ranker card. `selection`
 * is the day's, absent when the list spans several days (the filtered view).
 */
export function orderNote(picks, selection) {
  if (!picks.length) return [];
  const kinds = new Set(picks.map((pick) => (mustReadOf(pick) !== undefined ? 2 : pick.relevance ? 1 : 0)));
  const lead = selection ? "Ordered by " : "Newest day first; within a day, ordered by ";
  const spared = selection?.floor_spares_top;
  // Days ranked by the model since the twelve-day comparison have no rubric floor: REG FIT explains a
  // pick and no longer turns one away. Several days together may mix both, so each is told by its day.
  const floor = !selection
    ? "each day's picks cleared that day's selection (its line below the list)."
    : hasFloor(selection)
      ? `every pick clears the rubric's floor${spared ? ` unless the model put it among the day's first ${spared}` : ""}.`
      : "neither turns a pick away.";
  if (kinds.size === 1 && kinds.has(0)) {
    return [`${lead}the rubric total, then REG FIT: no learned model ranked them, and ${floor}`];
  }
  const [by, then] =
    kinds.size > 1
      ? [
          "the relevance model's must-read likelihood, ",
          " (its rank score or the rubric total on days without it)",
        ]
      : kinds.has(2)
        ? [
            "must-read likelihood: the relevance model's chance, ",
            ", that an expert would call the paper a must-read",
          ]
        : ["the relevance model's rank score, ", "; these picks came before its must-read likelihood"];
  return [
    lead + by,
    el("a", { attrs: { href: "#ranker-card" }, text: "learned from expert labels" }),
    `${then}. The rubric total says which axes a paper serves, REG FIT how it fits a regulated setting, and ${floor}`,
  ];
}

/** One line about the day: what was screened, what was kept, against which threshold. */
export function dayMeta(day) {
  const { screened, kept } = day.counts;
  return (
    `${screened} papers screened, ${kept} kept (${thresholdText(day.selection)}). ` +
    `Source: ${day.source}. Published ${formatTime(day.generated_at)}, rubric ${day.rubric_version}.`
  );
}
