// The page's entry point: loads the rubric and the archive, shows a day (the latest, or `?date=`),
// and wires the date picker, the leaderboard and the two forms.

import { describeProblem, getSnapshot, snapshotUrl } from "./api.js";
import { el, formatDay, notice, replace } from "./dom.js";
import { setupKeyForm } from "./key-form.js";
import { loadLeaderboard } from "./leaderboard.js";
import { dayMeta, renderPicks } from "./picks.js";
import { setupPlayground } from "./playground.js";
import { renderRubric, rubricIndex } from "./rubric.js";

const $ = (id) => document.getElementById(id);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const state = { days: [], date: null, rubric: rubricIndex(null), loading: 0 };

const problemText = (error) =>
  error?.result ? describeProblem(error.result).join(" ") : String(error?.message ?? error);

function requestedDate() {
  const date = new URLSearchParams(window.location.search).get("date");
  return date && DATE.test(date) ? date : null;
}

/** Newest first: the days of recent.json, plus the shown day when it is older than those. */
function knownDates() {
  const dates = state.days.map((day) => day.date);
  if (state.date && !dates.includes(state.date)) dates.push(state.date);
  return dates.sort().reverse();
}

function syncPicker() {
  const select = $("day-select");
  const summaries = new Map(state.days.map((day) => [day.date, day]));
  const dates = knownDates();
  replace(
    select,
    dates.map((date) => {
      const summary = summaries.get(date);
      const count = summary ? ` · ${summary.picks.length} picks` : "";
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

async function showDay(date) {
  const token = ++state.loading;
  const list = $("pick-list");
  const status = $("picks-status");
  list.setAttribute("aria-busy", "true");
  status.textContent = date ? `Loading the picks of ${formatDay(date)}…` : "Loading the latest picks…";
  try {
    const day = await getSnapshot(date ? `v1/daily/${date}` : "v1/daily/latest");
    // A later navigation started while this one was loading: let it win.
    if (token !== state.loading) return;
    state.date = day.date;
    $("day-title").textContent = `of ${formatDay(day.date)}`;
    document.title = `Research-Picks: picks of ${formatDay(day.date)}`;
    $("day-meta").textContent = dayMeta(day);
    $("sample-banner").hidden = !day.sample;
    renderPicks(list, day, state.rubric);
    // Says which day is on screen, for tests and for styling; set only once the list is filled.
    document.documentElement.dataset.day = day.date;
    const count = `${day.picks.length} ${day.picks.length === 1 ? "pick" : "picks"}`;
    status.textContent = `Showing ${count} of ${formatDay(day.date)}.`;
  } catch (error) {
    if (token !== state.loading) return;
    status.textContent = "";
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

function navigate(date) {
  if (!date || date === state.date) return;
  const url = new URL(window.location.href);
  url.searchParams.set("date", date);
  window.history.pushState({ date }, "", url);
  void showDay(date);
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
    const rate = `${Math.round(stats.keep_rate * 1000) / 10}%`;
    $("footer-stats").textContent =
      `${stats.days} days published (${stats.first_date ?? "–"} to ${stats.latest_date ?? "–"}): ` +
      `${stats.screened} papers screened, ${stats.kept} kept (${rate}).` +
      (stats.sample_days ? ` ${stats.sample_days} of the days are sample data.` : "");
  } catch {
    $("footer-stats").textContent = "";
  }
}

async function start() {
  setupPlayground($("verify-form"), $("verify-result"));
  setupKeyForm($("key-form"), $("key-result"));
  $("day-form").addEventListener("submit", (event) => event.preventDefault());
  $("day-select").addEventListener("change", (event) => navigate(event.target.value));
  $("day-older").addEventListener("click", () => step(1));
  $("day-newer").addEventListener("click", () => step(-1));
  window.addEventListener("popstate", () => void showDay(requestedDate()));

  await Promise.all([loadRubric(), loadArchive()]);
  await showDay(requestedDate());
  await Promise.all([loadLeaderboard($("leaderboard-body"), state.rubric), loadStats()]);
  document.documentElement.dataset.ready = "true";
}

void start();
