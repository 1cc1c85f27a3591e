// The items of the For-you list (GET /v1/me/picks): each paper's place for the reader and in the day,
// and in a line why it is there, from its `why_for_you`.

import { el, externalLink, formatDay } from "./dom.js";
import { likelihoodText } from "./picks.js";
import { ratingControl } from "./ratings.js";

/** A nearest paper below this cosine says little about why: it is not shown. */
const NEAR_ENOUGH = 0.1;

/** Why a paper stands where it does in this reader's list, in one or two short sentences. */
function whyText(paper) {
  const why = paper.why_for_you;
  const parts = [];
  if (why.followed_author) parts.push(`You follow ${why.followed_author}.`);
  if (why.followed_phrase) parts.push(`It mentions “${why.followed_phrase}”, which you follow.`);
  const near = why.nearest.filter(
    (other) => other.similarity >= NEAR_ENOUGH && other.arxiv_id !== paper.arxiv_id,
  );
  if (near.length)
    parts.push(`Near ${near.map((other) => `“${other.title}”`).join(" and ")} (your library or likes).`);
  if (why.placed_by === "must_read")
    parts.push("Kept in your first ten: the day's model is sure everyone should read it.");
  else if (why.placed_by === "blend" && !near.length)
    parts.push("Placed by your ratings and library, blended with the day's order.");
  if (why.global_likelihood !== null)
    parts.push(`Must-read likelihood ${likelihoodText(why.global_likelihood)}.`);
  return parts.join(" ");
}

/** One paper of the list: title, places, why, and its thumbs (`say` shows what a press did). */
export function forYouItem(paper, say) {
  const titleId = `for-you-${paper.arxiv_id}`;
  const why = whyText(paper);
  const figures = [
    `#${paper.rank} for you`,
    `#${paper.global_rank} of the day`,
    paper.picked ? "a pick" : null,
    `score ${paper.for_you.toFixed(2)}`,
  ].filter(Boolean);
  const card = el(
    "li",
    { className: "for-you-item", data: { arxivId: paper.arxiv_id } },
    el(
      "article",
      { attrs: { "aria-labelledby": titleId } },
      el("h3", { attrs: { id: titleId } }, externalLink(paper.abs_url, paper.title)),
      el("p", { className: "hit-meta", text: figures.join(" · ") }),
      why ? el("p", { className: "why-for-you" }, el("strong", { text: "Why for you: " }), why) : null,
    ),
  );
  card.firstChild.append(ratingControl({ arxivId: paper.arxiv_id, title: paper.title, titleId }, say));
  return card;
}

/** What the list is, said once above it. */
export function forYouIntro(answer) {
  const day = formatDay(answer.date);
  const order = answer.personal
    ? `The ${answer.screened} papers screened on ${day}, in your order: your ratings and library ` +
      "blended with the day's, the authors and phrases you follow first, and the day's sure must-reads " +
      "never below tenth."
    : `Your profile holds nothing to rank by yet, so this is the day's own order of the ` +
      `${answer.screened} papers screened on ${day}. A thumbs up teaches the list what you want.`;
  return `${order} The first ${answer.items.length} are shown; each load spends one call of your key.`;
}
