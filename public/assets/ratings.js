// A reader's thumbs on a card: "more like this" (1) and "less like this" (-1), written with
// PUT /v1/me/ratings/{arxiv_id}; pressing the pressed one again clears it (DELETE). The state shown is
// the server's: the profile export on load, then each write's answer. Every control of a paper shows
// the same state, wherever its card is (the day's picks, a range of days, the For-you list).

import { describeProblem } from "./api.js";
import { el } from "./dom.js";
import { keyed } from "./reader-key.js";
import { svg } from "./svg.js";

/** arXiv id (without version) -> 1 or -1; papers not here have no rating. */
const ratings = new Map();
const listeners = new Set();

const baseId = (id) => String(id).replace(/v\d+$/, "");

// Feather's thumbs (MIT), drawn in the text's colour.
const ICONS = {
  1: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3",
  "-1": "M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3zm7-13h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17",
};
const WORDS = { 1: "More like this", "-1": "Less like this" };

const icon = (value) =>
  svg(
    "svg",
    {
      viewBox: "0 0 24 24",
      width: 18,
      height: 18,
      "aria-hidden": "true",
      focusable: "false",
      class: "thumb-icon",
    },
    svg("path", { d: ICONS[value] }),
  );

/** Replaces the known ratings with the profile export's list. */
export function setRatings(list) {
  ratings.clear();
  for (const { arxiv_id: id, rating } of list) ratings.set(baseId(id), rating);
  refresh();
}

export const ratingOf = (id) => ratings.get(baseId(id)) ?? 0;

/** Calls `listener(id, rating)` after each rating the server accepted. */
export function onRated(listener) {
  listeners.add(listener);
}

/** Every control on the page shows what the server holds. */
function refresh() {
  for (const group of document.querySelectorAll(".rating[data-arxiv-id]")) {
    const current = ratingOf(group.dataset.arxivId);
    for (const button of group.querySelectorAll("button[data-rating]")) {
      button.setAttribute("aria-pressed", String(Number(button.dataset.rating) === current));
    }
  }
}

/** Words for a refused write, from the server's own answer. */
function refusal(result) {
  const lines = describeProblem(result);
  if (result.status === 401)
    return `Your key was refused: ${lines.join(" ")} Enter another key under “API key” below.`;
  if (result.status === 429) return `Too many ratings at once. ${lines.join(" ")}`;
  return `The rating was not saved. ${lines.join(" ")}`;
}

/**
 * Writes the rating the button asks for: its value, or none when it is already pressed. `say` shows a
 * line to the reader (`error` true for a refusal). Two presses on one paper never race: the second
 * waits for the first's answer.
 */
async function press(button, group, say) {
  if (group.getAttribute("aria-busy") === "true") return;
  const id = group.dataset.arxivId;
  const value = Number(button.dataset.rating);
  const clear = ratingOf(id) === value;
  group.setAttribute("aria-busy", "true");
  const path = `v1/me/ratings/${encodeURIComponent(id)}`;
  const result = clear ? await keyed("DELETE", path) : await keyed("PUT", path, { rating: value });
  group.removeAttribute("aria-busy");
  const title = group.dataset.title;
  if (!result.ok) {
    say(refusal(result), true);
    return;
  }
  if (clear) ratings.delete(baseId(id));
  else ratings.set(baseId(id), value);
  refresh();
  say(clear ? `Rating cleared: ${title}.` : `Rated “${WORDS[value].toLowerCase()}”: ${title}.`, false);
  for (const listener of listeners) listener(id, clear ? 0 : value);
}

/**
 * The two thumbs of one paper, as a group named by the card's title (`titleId`). Real buttons with
 * aria-pressed: Space or Enter presses them, and a screen reader says which is pressed.
 */
export function ratingControl({ arxivId, title, titleId }, say) {
  const current = ratingOf(arxivId);
  const group = el("div", {
    className: "rating",
    attrs: { role: "group", "aria-labelledby": titleId },
    data: { arxivId: baseId(arxivId), title },
  });
  for (const value of [1, -1]) {
    const button = el(
      "button",
      {
        className: `secondary thumb thumb-${value > 0 ? "up" : "down"}`,
        attrs: { type: "button", "aria-pressed": String(current === value) },
        data: { rating: value },
      },
      icon(value),
      el("span", { className: "thumb-text", text: WORDS[value] }),
    );
    button.addEventListener("click", () => press(button, group, say));
    group.append(button);
  }
  return group;
}
