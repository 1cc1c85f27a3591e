// The page's entry point: loads the rubric and the archive, shows a day (the latest, or `?date=`) or
// the filtered picks of a range of days (`?from=&to=...`), and wires the controls, charts and forms.

import { describeProblem, getSnapshot, snapshotUrl } from "./api.js";
import { el, formatDay, notice, replace } from "./dom.js";
import {
  describeFilters,
  fillForm,
  filterParams,
  filterRange,
  formParams,
  hasFilters,
  matches,
  readFilters,
} from "./filters.js";
import { dayMeta, orderNote, pickItem, renderPicks } from "./picks.js";
import { renderRubric, rubricIndex } from "./rubric.js";

const $ = (id) => document.getElementById(id);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const state = {
  days: [],
  /** Every published day, oldest first: from stats.json, else the recent days. */
  published: [],
  stats: null,
  date: null,
  rubric: rubricIndex(null),
  loading: 0,
  snapshots: new Map(),
};

/**
 * Loads a section's module the first time the section comes near the viewport or takes focus, so
 * the first view carries only what it shows (the search module waits for the search box instead).
 */
function whenNear(id, load) {
  let pending = null;
  const start = () => {
    pending ??= load();
    return pending;
  };
  const section = $(id);
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      void start();
    },
    { rootMargin: "200px" },
  );
  observer.observe(section);
  section.addEventListener("focusin", () => void start(), { once: true });
  // In view already, or named by the address (a link to #playground, which the browser may not have
  // scrolled to yet): drawn before the page says it is ready.
  const box = section.getBoundingClientRect();
  return (box.top < innerHeight + 200 && box.bottom > -200) || location.hash === `#${id}` ? start() : null;
}

let graphModule = null;
/** Draws the citation graph of the shown day (or says why not), once graph.js is loaded. */
function drawGraph() {
  if (!graphModule) return;
  if (state.graphDay) graphModule.renderGraph($("graph-body"), state.graphDay);
  else
    replace(
      $("graph-body"),
      notice(
        "info",
        document.documentElement.dataset.view === "filtered"
          ? "Choose a single day to see its citation graph."
          : "No day is shown, so there is no citation graph.",
      ),
    );
}

/** A day's snapshot, fetched once per page. */
function daySnapshot(path) {
  let pending = state.snapshots.get(path);
  if (!pending) {
    pending = getSnapshot(path);
    state.snapshots.set(path, pending);
    pending.catch(() => state.snapshots.delete(path));
  }
  return pending;
}

const problemText = (error) =>
  error?.result ? describeProblem(error.result).join(" ") : String(error?.message ?? error);

function requestedDate() {
  const date = new URLSearchParams(window.location.search).get("date");
  return date && DATE.test(date) ? date : null;
}

/** Newest first: every published day (recent.json's when stats.json has no list), plus the shown day. */
function knownDates() {
  const dates = (state.published.length ? state.published : state.days).map((day) => day.date);
  if (state.date && !dates.includes(state.date)) dates.push(state.date);
  return dates.sort().reverse();
}

function syncPicker() {
  const select = $("day-select");
  const summaries = new Map(state.published.map((day) => [day.date, day]));
  for (const day of state.days) summaries.set(day.date, { ...day, kept: day.picks.length });
  const dates = knownDates();
  replace(
    select,
    dates.map((date) => {
      const summary = summaries.get(date);
      const count = summary?.kept === undefined ? "" : ` · ${summary.kept} picks`;
      const sample = summary?.sample ? " (sample)" : "";
      return el("option", {
        attrs: { value: date, selected: date === state.date },
        text: `${formatDay(date)}${count}${sample}`,
      });
    }),
  );
  select.value = state.date ?? "";
  select.disabled = dates.length === 0;
  const index = dates.indexOf(state.date);
  $("day-older").disabled = index === -1 || index >= dates.length - 1;
  $("day-newer").disabled = index <= 0;
}

/** Opens or closes the range filter; its values live in the address either way. */
function setFilterOpen(open) {
  $("filter-form").hidden = !open;
  $("filter-toggle").setAttribute("aria-expanded", String(open));
}

function setMode(mode) {
  const filtered = mode === "filtered";
  // A filtered address shows the filter that made it, so the reader can see and change it.
  if (filtered) setFilterOpen(true);
  document.documentElement.dataset.view = mode;
  $("day-meta").hidden = filtered;
  $("filter-clear").hidden = !filtered;
  if (!filtered) {
    delete document.documentElement.dataset.filtered;
    replace($("filter-notes"));
  }
}

/** Says once, above the list, what orders the picks on screen. */
function showOrder(picks, selection) {
  const note = orderNote(picks, selection);
  replace($("picks-order"), note);
  $("picks-order").hidden = note.length === 0;
}

async function showDay(date) {
  const token = ++state.loading;
  const list = $("pick-list");
  const status = $("picks-status");
  setMode("day");
  fillForm($("filter-form"), readFilters(new URLSearchParams()).filters);
  list.setAttribute("aria-busy", "true");
  status.textContent = date ? `Loading the picks of ${formatDay(date)}…` : "Loading the latest picks…";
  try {
    const day = await daySnapshot(date ? `v1/daily/${date}` : "v1/daily/latest");
    // A later navigation started while this one was loading: let it win.
    if (token !== state.loading) return;
    state.date = day.date;
    $("day-title").textContent = `of ${formatDay(day.date)}`;
    document.title = `Research-Picks: picks of ${formatDay(day.date)}`;
    $("day-meta").textContent = dayMeta(day);
    const toggle = $("screened-toggle");
    toggle.hidden = day.counts.screened <= day.picks.length;
    toggle.textContent = `${day.counts.screened} screened · ${day.picks.length} picked: show the rest`;
    toggle.dataset.date = day.date;
    showOrder(day.picks, day.selection);
    $("sample-banner").hidden = !day.sample;
    renderPicks(list, day, state.rubric);
    state.graphDay = day;
    drawGraph();
    // Says which day is on screen, for tests and for styling; set only once the list is filled.
    document.documentElement.dataset.day = day.date;
    const count = `${day.picks.length} ${day.picks.length === 1 ? "pick" : "picks"}`;
    status.textContent = `Showing ${count} of ${formatDay(day.date)}.`;
  } catch (error) {
    if (token !== state.loading) return;
    status.textContent = "";
    showOrder([]);
    state.graphDay = null;
    drawGraph();
    replace(
      list,
      el(
        "li",
        {},
        notice(
          "error",
          `Could not load these picks. ${problemText(error)} `,
          date ? el("a", { attrs: { href: "./" }, text: "Show the latest day" }) : null,
        ),
      ),
    );
  } finally {
    if (token === state.loading) list.removeAttribute("aria-busy");
  }
  syncPicker();
  for (const link of document.querySelectorAll("a[data-snapshot]"))
    link.href = snapshotUrl(link.dataset.snapshot);
}

const latestDate = () =>
  state.published.at(-1)?.date ?? state.days[0]?.date ?? new Date().toISOString().slice(0, 10);

/** The picks of every published day in the range that pass the filters: newest day first, then rank. */
async function showFiltered(params) {
  const token = ++state.loading;
  const list = $("pick-list");
  const status = $("picks-status");
  setMode("filtered");
  const { filters, problems } = readFilters(params);
  const range = filterRange(filters, latestDate());
  fillForm($("filter-form"), filters, range);
  list.setAttribute("aria-busy", "true");
  status.textContent = `Loading the picks from ${formatDay(range.from)} to ${formatDay(range.to)}…`;
  const dates = state.published
    .map((day) => day.date)
    .filter((date) => date >= range.from && date <= range.to)
    .sort()
    .reverse();
  const loaded = await Promise.all(
    dates.map((date) => daySnapshot(`v1/daily/${date}`).catch(() => ({ date, failed: true }))),
  );
  if (token !== state.loading) return;
  const failed = loaded.filter((day) => day.failed).map((day) => day.date);
  const picks = loaded
    .filter((day) => !day.failed)
    .flatMap((day) => [...day.picks].sort((a, b) => a.rank - b.rank))
    .filter((pick) => matches(pick, filters));
  const notes = [...problems, ...range.notes];
  if (problems.length) notes.push("Those values fell back to their defaults.");
  if (failed.length)
    notes.push(`Could not load ${failed.map(formatDay).join(", ")}; their picks are missing.`);
  replace($("filter-notes"), notes.length ? notice("info", notes.join(" ")) : null);
  $("day-title").textContent = `from ${formatDay(range.from)} to ${formatDay(range.to)}`;
  document.title = "Research-Picks: filtered picks";
  $("sample-banner").hidden = !loaded.some((day) => day.sample);
  showOrder(picks);
  if (picks.length === 0) {
    replace(list, el("li", { className: "notice notice-empty", text: "No pick matches these filters." }));
  } else {
    replace(
      list,
      picks.map((pick) => {
        const item = pickItem(pick, state.rubric);
        const rank = item.querySelector(".rank");
        if (rank) rank.textContent = `#${pick.rank} · ${formatDay(pick.date)}`;
        return item;
      }),
    );
  }
  const count = `${picks.length} ${picks.length === 1 ? "pick" : "picks"}`;
  status.textContent = `Showing ${count} of ${dates.length} published days (${describeFilters(filters)}).`;
  state.graphDay = null;
  drawGraph();
  list.removeAttribute("aria-busy");
  // The view's own query, in canonical order, once the list is filled: for tests and for sharing.
  document.documentElement.dataset.filtered = filterParams({ ...filters, ...range }).toString();
  delete document.documentElement.dataset.day;
  syncPicker();
}

/** Shows what the address asks for: filtered picks, or one day. */
function route() {
  const params = new URLSearchParams(window.location.search);
  return hasFilters(params) ? showFiltered(params) : showDay(requestedDate());
}

function navigate(date) {
  if (!date || (date === state.date && document.documentElement.dataset.view === "day")) return;
  const url = new URL(window.location.href);
  url.search = "";
  url.searchParams.set("date", date);
  window.history.pushState({ date }, "", url);
  void showDay(date);
}

function applyFilters(params) {
  const url = new URL(window.location.href);
  url.search = params.toString();
  window.history.pushState({ filters: url.search }, "", url);
  void route();
}

function step(offset) {
  const dates = knownDates();
  const next = dates[dates.indexOf(state.date) + offset];
  if (next) navigate(next);
}

async function loadRubric() {
  try {
    const rubric = await getSnapshot("v1/axes");
    state.rubric = rubricIndex(rubric);
    renderRubric(
      { summary: $("rubric-summary"), groups: $("rubric-groups"), regFit: $("regfit-rubric") },
      rubric,
    );
  } catch (error) {
    $("rubric-status").textContent = `Could not load the rubric. ${problemText(error)}`;
  }
}

/** The ranker card, when the rubric section is reached (a site published before it has none). */
async function loadRanker() {
  try {
    const [{ renderRanker }, card] = await Promise.all([import("./ranker.js"), getSnapshot("v1/ranker")]);
    renderRanker($("ranker-card"), card);
  } catch {
    // The rubric section stands without it.
  }
}

/**
 * A form whose module loads when its section is reached. A submit that comes first (a fast
 * keyboard) is held, the module loaded, and the submit sent again to the module's own handler.
 */
function lazyForm(form, start) {
  let ready = false;
  let pending = null;
  const load = () => {
    pending ??= start().then(() => {
      ready = true;
    });
    return pending;
  };
  form.addEventListener("submit", async (event) => {
    if (ready) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    await load();
    form.requestSubmit();
  });
  return load;
}

async function loadArchive() {
  try {
    state.days = (await getSnapshot("v1/recent")).days ?? [];
  } catch {
    state.days = [];
  }
}

async function loadStats() {
  try {
    const stats = await getSnapshot("v1/stats");
    state.stats = stats;
    state.published =
      stats.by_day ?? [...state.days].reverse().map((day) => ({ date: day.date, sample: day.sample }));
    const rate = `${Math.round(stats.keep_rate * 1000) / 10}%`;
    $("footer-stats").textContent =
      `${stats.days} days published (${stats.first_date ?? "–"} to ${stats.latest_date ?? "–"}): ` +
      `${stats.screened} papers screened, ${stats.kept} kept (${rate}).` +
      (stats.sample_days ? ` ${stats.sample_days} of the days are sample data.` : "");
  } catch {
    $("footer-stats").textContent = "";
    state.published = [...state.days].reverse().map((day) => ({ date: day.date, sample: day.sample }));
  }
}

/** Whether reader-key.js keeps a key, by its name; storage may be refused (a sandboxed frame). */
function keptKey() {
  try {
    return sessionStorage["picks-key"] ?? localStorage["picks-key"];
  } catch {}
}

async function start() {
  // The playground and the key form are far down the page: their modules load when reached.
  const playground = lazyForm($("verify-form"), async () => {
    const { setupPlayground } = await import("./playground.js");
    setupPlayground($("verify-form"), $("verify-result"));
  });
  const keyForm = lazyForm($("key-form"), async () => {
    const { setupKeyForm } = await import("./key-form.js");
    await setupKeyForm($("key-form"), $("key-result"));
  });
  $("day-form").addEventListener("submit", (event) => event.preventDefault());
  $("day-select").addEventListener("change", (event) => navigate(event.target.value));
  $("day-older").addEventListener("click", () => step(1));
  $("day-newer").addEventListener("click", () => step(-1));
  // A disclosure: focus stays on the button, and the next Tab enters the form right after it.
  $("filter-toggle").addEventListener("click", () => setFilterOpen($("filter-form").hidden));
  $("filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    applyFilters(formParams(event.target));
  });
  $("filter-clear").addEventListener("click", () => {
    const url = new URL(window.location.href);
    url.search = "";
    window.history.pushState({}, "", url);
    void route();
  });
  window.addEventListener("popstate", () => void route());
  $("screened-toggle").onclick = async (event) =>
    (await import("./screened.js")).toggleScreened(event.target, $("screened-body"));
  $("search-input").addEventListener(
    "focus",
    async (event) => {
      const { setupSearch } = await import("./search.js");
      setupSearch($("search-input"), $("search-results"), $("search-status"));
      // The module's own focus handler was not there for this first focus: hand it on.
      if (document.activeElement === event.target) event.target.dispatchEvent(new FocusEvent("focus"));
    },
    { once: true },
  );

  await Promise.all([loadRubric(), loadArchive().then(loadStats)]);
  await route();
  await Promise.all([
    whenNear("citations", async () => {
      graphModule = await import("./graph.js");
      drawGraph();
    }),
    whenNear("figures", async () => {
      const { renderCharts } = await import("./charts.js");
      renderCharts($("charts-body"), state.stats, state.rubric);
    }),
    whenNear("leaderboard", async () => {
      const { loadLeaderboard } = await import("./leaderboard.js");
      await loadLeaderboard($("leaderboard-body"), state.rubric);
    }),
    whenNear("rubric", loadRanker),
    whenNear("playground", playground),
    whenNear("get-key", keyForm),
    // A kept key brings the ratings and the For-you view; without one, none of their bytes.
    keptKey() && import("./for-you.js").then((module) => module.startReader()),
  ]);
  document.documentElement.dataset.ready = "true";
}

void start();
