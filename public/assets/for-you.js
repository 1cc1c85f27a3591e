// With a reader's key: thumbs on every card, and a "For you" list beside the day's picks (GET
// /v1/me/picks: the day's screened papers in this reader's order, each with why it is there). Loaded
// only when a key is kept or entered (app.js, use-key.js), so the first view without one is unchanged.

import { describeProblem } from "./api.js";
import { el, formatDay, notice, replace } from "./dom.js";
import { forYouIntro, forYouItem } from "./for-you-item.js";
import { onRated, ratingControl, setRatings } from "./ratings.js";
import { keyed } from "./reader-key.js";
import { stylesheet } from "./stylesheet.js";

const LIMIT = 20;

const $ = (id) => document.getElementById(id);
const root = document.documentElement;

let reader = null;

// A rating changes the list: shown, it is loaded again; hidden, when it is next opened.
onRated(() => {
  if (!reader) return;
  reader.stale = true;
  if (reader.on) void loadList();
});

/** One line for the reader above the lists: what a rating did, or why something was refused. */
function say(text, error = false) {
  if (!reader) return;
  replace(reader.message, text ? notice(error ? "error" : "info", text) : null);
}

/** The thumbs of a card, once; `titleId` names it. */
function addThumbs(card, titleId, title) {
  if (card.querySelector(".rating") || !card.dataset.arxivId) return;
  const control = ratingControl({ arxivId: card.dataset.arxivId, title, titleId }, say);
  const place = card.querySelector(".headline") ?? card.querySelector(".hit-meta");
  if (place) place.after(control);
  else card.append(control);
}

/** Thumbs on every card the page shows: the day's picks, a range of days, the screened papers. */
function thumbAll() {
  for (const card of $("pick-list").querySelectorAll("li.pick")) {
    const heading = card.querySelector("h2[id]");
    if (heading) addThumbs(card, heading.id, heading.textContent);
  }
  for (const card of document.querySelectorAll("#screened-list .screened-item")) {
    const link = card.querySelector("a, span");
    if (!link) continue;
    link.id ||= `screened-title-${card.dataset.arxivId}`;
    addThumbs(card, link.id, link.textContent);
  }
}

/** Fills the For-you list for the day on screen (the latest when the page shows a range). */
async function loadList() {
  const { list, status, note } = reader;
  const token = ++reader.loading;
  const date = root.dataset.day;
  reader.shownFor = `${date ?? ""}`;
  reader.stale = false;
  const query = new URLSearchParams({ limit: String(LIMIT) });
  if (date) query.set("date", date);
  list.setAttribute("aria-busy", "true");
  status.textContent = date ? `Loading your list of ${formatDay(date)}…` : "Loading your list…";
  const result = await keyed("GET", `v1/me/picks?${query}`);
  if (token !== reader.loading) return;
  list.removeAttribute("aria-busy");
  if (!result.ok) {
    status.textContent = "";
    note.textContent = "";
    reader.stale = true;
    const lead = result.status === 401 ? "Your key was refused:" : "Your list could not be loaded:";
    replace(list, el("li", {}, notice("error", `${lead} ${describeProblem(result).join(" ")}`)));
    return;
  }
  const answer = result.body;
  // A keyboard reader who just pressed a thumb here keeps their place: on the same paper's thumb.
  const focused = document.activeElement?.closest?.("#for-you-list .rating");
  const keep = focused && {
    id: focused.dataset.arxivId,
    rating: document.activeElement.dataset.rating,
  };
  note.textContent = forYouIntro(answer);
  replace(
    list,
    answer.items.map((paper) => forYouItem(paper, say)),
  );
  list.dataset.version = String(answer.profile_version);
  if (keep) {
    list
      .querySelector(`.rating[data-arxiv-id="${CSS.escape(keep.id)}"] [data-rating="${keep.rating}"]`)
      ?.focus();
  }
  status.textContent = `Showing your first ${answer.items.length} of ${formatDay(answer.date)}.`;
  root.dataset.forYou = `${answer.date}:${answer.profile_version}`;
}

/** Shows the For-you list (true) or the day's picks (false), and says so in the address. */
function showForYou(on) {
  if (!reader) return;
  reader.on = on;
  const section = $("picks");
  if (on) section.dataset.list = "for-you";
  else delete section.dataset.list;
  reader.box.hidden = !on;
  reader.dayButton.setAttribute("aria-pressed", String(!on));
  reader.youButton.setAttribute("aria-pressed", String(on));
  // The address says so (a reload opens the same list), leaving any other fragment alone.
  if (on !== (window.location.hash === "#for-you")) {
    const url = new URL(window.location.href);
    url.hash = on ? "for-you" : "";
    window.history.replaceState(window.history.state, "", url);
  }
  if (on && (reader.stale || reader.shownFor !== `${root.dataset.day ?? ""}`)) void loadList();
}

function viewSwitch() {
  const button = (text) =>
    el("button", { className: "secondary", attrs: { type: "button", "aria-pressed": "false" }, text });
  const dayButton = button("The day's picks");
  const youButton = button("For you");
  dayButton.addEventListener("click", () => showForYou(false));
  youButton.addEventListener("click", () => showForYou(true));
  const group = el(
    "div",
    { className: "list-switch", attrs: { role: "group", "aria-label": "Which list" } },
    dayButton,
    youButton,
  );
  return { group, dayButton, youButton };
}

/**
 * Starts the reader's part of the page with the kept key: its ratings from the profile export, the
 * thumbs, and the switch to the For-you list (open at once when the address ends in #for-you).
 * Resolves when the thumbs are shown, or the key's refusal is.
 */
export async function startReader() {
  if (reader) return;
  await stylesheet("reader.css");
  const { group, dayButton, youButton } = viewSwitch();
  const message = el("div", { attrs: { id: "reader-message", "aria-live": "polite" } });
  const status = el("p", { className: "status", attrs: { role: "status", "aria-live": "polite" } });
  const note = el("p", { className: "muted", attrs: { id: "for-you-note" } });
  const list = el("ol", { className: "for-you-list", attrs: { id: "for-you-list" } });
  const box = el(
    "div",
    { attrs: { id: "for-you", hidden: true } },
    el("h2", { attrs: { id: "for-you-heading" }, text: "For you" }),
    note,
    status,
    list,
  );
  reader = { message, status, note, list, box, dayButton, youButton, loading: 0, stale: true, on: false };
  $("filter-form").before(group, message);
  $("pick-list").after(box);

  const profile = await keyed("GET", "v1/me/profile");
  if (!profile.ok) {
    // A revoked or mistyped key: said where the thumbs would be, with the way to another key.
    group.hidden = true;
    const problem = describeProblem(profile).join(" ");
    say(
      profile.status === 401
        ? `The key kept on this page was refused: ${problem} Enter another under “API key”.`
        : `Your ratings could not be loaded: ${problem}`,
      true,
    );
    root.dataset.reader = "refused";
    return;
  }
  setRatings(profile.body.ratings);
  reader.profile = profile.body;
  thumbAll();
  reader.observer = new MutationObserver(thumbAll);
  reader.observer.observe($("pick-list"), { childList: true });
  reader.observer.observe($("screened-body"), { childList: true, subtree: true });
  // Another day or a range on screen: the list follows the day, and a range shows the picks.
  reader.dayObserver = new MutationObserver(() => {
    if (root.dataset.view === "filtered") showForYou(false);
    else if (reader.on && reader.shownFor !== `${root.dataset.day ?? ""}`) void loadList();
  });
  reader.dayObserver.observe(root, { attributeFilter: ["data-day", "data-view"] });
  showForYou(window.location.hash === "#for-you" && root.dataset.view !== "filtered");
  root.dataset.reader = "ready";
}

/** Takes the reader's part away again (the key was forgotten): the page as it is without a key. */
export function stopReader() {
  if (!reader) return;
  showForYou(false);
  reader.observer?.disconnect();
  reader.dayObserver?.disconnect();
  for (const node of document.querySelectorAll(".rating, .list-switch, #reader-message, #for-you"))
    node.remove();
  reader = null;
  setRatings([]);
  delete root.dataset.reader;
  delete root.dataset.forYou;
}

/** The kept key's profile as the page loaded it (key id and tier), or null. */
export const readerProfile = () => reader?.profile ?? null;
