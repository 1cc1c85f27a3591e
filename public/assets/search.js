// Search across every published pick by title, author, summary and arXiv id, as you type. The index
// (v1/search-index.json, written by `picks curate`) and MiniSearch (assets/vendor/minisearch.js) are
// fetched the first time the box gets focus, never before: the first view stays small.

import { el, formatDay, notice, replace } from "./dom.js";

const INDEX_VERSION = 1;
const MAX_RESULTS = 20;
const ARXIV_ID = /^(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?\/\d{7})(v\d+)?$/i;

// Prefixes from two letters and typo tolerance from four: a one-letter prefix matches most of the
// vocabulary and costs more than a keystroke's budget on a year of days.
const OPTIONS = {
  prefix: (term) => term.length >= 2,
  fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
  boost: { title: 2, authors: 1.5, arxiv_id: 3 },
};

let loading = null;

async function loadIndex() {
  const [{ default: MiniSearch }, { decodeIndex }, response] = await Promise.all([
    import("./vendor/minisearch.js"),
    import("./search-index-codec.js"),
    fetch("v1/search-index.json", { headers: { accept: "application/json" } }),
  ]);
  if (!response.ok) throw new Error(`the search index is not there (status ${response.status})`);
  const file = await response.json();
  if (file?.version !== INDEX_VERSION) throw new Error("the search index is of another version");
  return MiniSearch.loadJS(decodeIndex(file.index), file.options);
}

/** The index, loaded once; a failed load is tried again on the next focus. */
function index() {
  if (!loading) {
    loading = loadIndex();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

/** Hits for `query`: an arXiv id matches that id exactly, anything else the four fields. */
export function runSearch(search, query) {
  const text = query.trim().replace(/^arxiv:/i, "");
  if (ARXIV_ID.test(text)) {
    const exact = search.search(text.replace(/v\d+$/, ""), {
      fields: ["arxiv_id"],
      combineWith: "AND",
      prefix: true,
    });
    if (exact.length) return exact;
  }
  return search.search(text, OPTIONS);
}

function resultItem(hit) {
  const day = new URLSearchParams({ date: hit.date });
  return el(
    "li",
    { className: "search-hit", data: { arxivId: hit.arxiv_id, date: hit.date } },
    el("a", { attrs: { href: `?${day}#pick-${hit.date}-${hit.rank}` }, text: hit.title }),
    el("span", { className: "muted", text: ` ${hit.byline}` }),
    el("span", {
      className: "hit-meta",
      text: ` · ${formatDay(hit.date)}, #${hit.rank} · arXiv:${hit.arxiv_id} · total ${hit.total}, REG FIT ${hit.reg_fit}`,
    }),
  );
}

/** Wires the search box: loads the index on first focus, answers every keystroke. */
export function setupSearch(input, results, status) {
  let search = null;
  const show = () => {
    const query = input.value;
    if (!search) return;
    if (query.trim().length < 2) {
      replace(results);
      status.textContent = query.trim() ? "Type at least two characters." : "";
      return;
    }
    const started = performance.now();
    const hits = runSearch(search, query);
    replace(results, hits.slice(0, MAX_RESULTS).map(resultItem));
    const took = performance.now() - started;
    results.dataset.ms = took.toFixed(1);
    results.dataset.query = query;
    const shown = Math.min(hits.length, MAX_RESULTS);
    status.textContent = hits.length
      ? `${hits.length} ${hits.length === 1 ? "pick matches" : "picks match"}${hits.length > shown ? `, the best ${shown} shown` : ""}.`
      : "No pick matches.";
  };
  input.addEventListener("focus", async () => {
    if (search) return;
    status.textContent = "Loading the search index…";
    try {
      search = await index();
      status.textContent = `Search ${search.documentCount} picks.`;
      input.dataset.ready = "true";
      show();
    } catch (error) {
      replace(results);
      status.textContent = "";
      results.append(el("li", {}, notice("error", `Search is not available: ${error.message}.`)));
    }
  });
  input.addEventListener("input", show);
  input.form?.addEventListener("submit", (event) => event.preventDefault());
}
