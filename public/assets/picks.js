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

/** Why the relevance model ranked the pick where it is: its heads and the terms that raised it most. */
function rankedBlock(pick) {
  if (!pick.why_ranked?.length || !pick.relevance) return null;
  const percent = (value) => `${Math.round(value * 100)}%`;
  return [
    el("h4", { text: "Why it ranked here" }),
    el("p", {
      text:
        `The relevance model puts it on topic at ${percent(pick.relevance.on_topic)}, ` +
        `a must-read at ${percent(pick.relevance.top)}` +
        (pick.relevance.regulated === undefined
          ? "."
          : `, fit for regulated settings at ${percent(pick.relevance.regulated)}.`),
    }),
    el(
      "p",
      {},
      "Words that raised it most: ",
      pick.why_ranked.flatMap((reason, i) => [i ? ", " : "", el("code", { text: reason.term })]),
      ".",
    ),
  ];
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
    rankedBlock(pick),
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

/** One line about the day: what was screened, what was kept, against which threshold. */
export function dayMeta(day) {
  const { screened, kept } = day.counts;
  const { min_total: minTotal, min_reg_fit: minRegFit } = day.selection;
  return (
    `${screened} papers screened, ${kept} kept ` +
    `(total at least ${minTotal} and REG FIT at least ${minRegFit}). ` +
    `Source: ${day.source}. Published ${formatTime(day.generated_at)}, rubric ${day.rubric_version}.`
  );
}
