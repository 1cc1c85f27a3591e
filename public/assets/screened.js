// A day's screened view: every other candidate the day screened, in the model's order, with its
// must-read likelihood, rubric total, REG FIT and why it was not picked. Fetched when the reader opens
// it (the module, the day's v1/screened file and MiniSearch), never in the first view. Filtered as the
// picks are (filters.js) and searched as the archive is (search.js), over this day's papers.

import { getSnapshot } from "./api.js";
import { el, externalLink, notice, replace } from "./dom.js";
import { AXES, describeFilters, GROUP_IDS, matches, readFilters } from "./filters.js";
import { likelihoodText } from "./picks.js";
import { runSearch } from "./search.js";

const GROUP_AXES = {
  substrate: ["A1", "A2", "A3"],
  governance: ["A4", "A5", "A6"],
  research: ["A7", "A8", "A9"],
};

/** A screened paper in the shape the picks' filters read. */
function asPick(paper) {
  const axes = Object.fromEntries(AXES.map((id) => [id, { score: paper.scores.axes[id] ?? 0 }]));
  const groups = Object.fromEntries(
    GROUP_IDS.map((id) => [
      id,
      GROUP_AXES[id].reduce((sum, axis) => sum + (paper.scores.axes[axis] ?? 0), 0),
    ]),
  );
  return { scores: { axes, total: paper.scores.total, reg_fit: { score: paper.scores.reg_fit }, groups } };
}

function item(paper) {
  const figures = [
    `#${paper.rank}`,
    paper.must_read === null ? null : `must-read ${likelihoodText(paper.must_read)}`,
    `total ${paper.scores.total}/45`,
    `REG FIT ${paper.scores.reg_fit}/3`,
  ].filter(Boolean);
  return el(
    "li",
    { className: "search-hit screened-item", data: { arxivId: paper.arxiv_id } },
    externalLink(paper.abs_url, paper.title),
    el("span", { className: "hit-meta", text: ` · ${figures.join(" · ")}` }),
    el("p", { className: "muted screened-reason", text: paper.reason }),
  );
}

function select(name, label, options) {
  const id = `screened-${name}`;
  return el(
    "div",
    { className: "field" },
    el("label", { attrs: { for: id }, text: label }),
    el(
      "select",
      { attrs: { id, name } },
      options.map(([value, text]) => el("option", { attrs: { value }, text })),
    ),
  );
}

function form() {
  const levels = (max) => [
    ["", "Any"],
    ...Array.from({ length: max }, (_, i) => [String(i + 1), String(i + 1)]),
  ];
  return el(
    "form",
    { className: "filters screened-form", attrs: { "aria-label": "Filter the screened papers" } },
    el(
      "div",
      { className: "filter-fields" },
      el(
        "div",
        { className: "field" },
        el("label", { attrs: { for: "screened-q" }, text: "Search title, author, summary or arXiv id" }),
        el("input", { attrs: { id: "screened-q", name: "q", type: "search", autocomplete: "off" } }),
      ),
      select("axis", "Axis", [["", "Any axis"], ...AXES.map((id) => [id, id])]),
      select("min", "Axis score at least", levels(5)),
      el(
        "div",
        { className: "field" },
        el("label", { attrs: { for: "screened-total" }, text: "Total at least" }),
        el("input", {
          attrs: {
            id: "screened-total",
            name: "total",
            type: "number",
            min: "0",
            max: "45",
            inputmode: "numeric",
          },
        }),
      ),
      select("reg", "REG FIT at least", levels(3)),
      select("group", "Strongest group", [["", "Any group"], ...GROUP_IDS.map((id) => [id, id])]),
    ),
  );
}

/** The index of the day's papers, built here from the file already loaded: nothing more to fetch. */
async function dayIndex(papers) {
  const { default: MiniSearch } = await import("./vendor/minisearch.js");
  const search = new MiniSearch({ fields: ["title", "authors", "summary", "arxiv_id"], idField: "id" });
  search.addAll(
    papers.map((paper, id) => ({
      id,
      title: paper.title,
      authors: paper.authors.join(", "),
      summary: paper.summary,
      arxiv_id: paper.arxiv_id,
    })),
  );
  return search;
}

let watching = false;

/** Closes the view when the page shows another day or a range: what it lists belongs to one day. */
function closeOnChange(toggle, body) {
  if (watching) return;
  watching = true;
  new MutationObserver(() => {
    toggle.setAttribute("aria-expanded", "false");
    body.hidden = true;
  }).observe(document.documentElement, { attributeFilter: ["data-day", "data-view", "data-filtered"] });
}

/** The button's click: opens or closes the view, loading the day's papers the first time it opens. */
export async function toggleScreened(toggle, body) {
  closeOnChange(toggle, body);
  const open = toggle.getAttribute("aria-expanded") !== "true";
  toggle.setAttribute("aria-expanded", String(open));
  body.hidden = !open;
  if (!open || body.dataset.date === toggle.dataset.date) return;
  body.dataset.date = toggle.dataset.date;
  await openScreened(body, toggle.dataset.date);
}

/**
 * Fills `body` with the day's screened papers that were not picked, a filter form and a status line.
 * A day published before screened files existed says so.
 */
export async function openScreened(body, date) {
  const status = el("p", { className: "status", attrs: { role: "status", "aria-live": "polite" } });
  replace(body, status);
  status.textContent = "Loading the screened papers…";
  let day;
  try {
    day = await getSnapshot(`v1/screened/${date}`);
  } catch {
    replace(body, notice("info", "No list of screened papers was published for this day."));
    return;
  }
  const rest = day.papers.filter((paper) => !paper.picked);
  const list = el("ol", { className: "search-results", attrs: { id: "screened-list" } });
  const filterForm = form();
  const intro = el("p", {
    className: "muted",
    text:
      `The ${rest.length} papers screened on this day and not picked, in the order the model ranked all ` +
      `${day.counts.screened}; the ${day.counts.picked} picks are above. Each says why it was not picked.`,
  });
  replace(body, intro, filterForm, status, list);
  const search = await dayIndex(day.papers);
  const show = () => {
    const params = new URLSearchParams();
    for (const name of ["axis", "min", "total", "reg", "group"]) {
      const value = String(filterForm.elements[name].value ?? "").trim();
      if (value !== "") params.set(name, value);
    }
    if (!params.has("axis")) params.delete("min");
    const { filters } = readFilters(params);
    const query = filterForm.elements.q.value.trim();
    const found = query.length >= 2 ? new Set(runSearch(search, query).map((hit) => hit.id)) : null;
    const shown = rest.filter(
      (paper) => matches(asPick(paper), filters) && (found === null || found.has(day.papers.indexOf(paper))),
    );
    replace(list, shown.map(item));
    const what = [describeFilters(filters), query.length >= 2 ? `matching “${query}”` : ""].filter(Boolean);
    status.textContent =
      shown.length === rest.length
        ? `Showing all ${rest.length} papers not picked.`
        : `Showing ${shown.length} of the ${rest.length} papers not picked (${what.join(", ")}).`;
    list.dataset.shown = String(shown.length);
  };
  filterForm.addEventListener("input", show);
  filterForm.addEventListener("submit", (event) => event.preventDefault());
  show();
}
