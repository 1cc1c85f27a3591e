// The agent-runtime leaderboard (GET /v1/score/leaderboard). Runtime names, vendors and urls are
// whatever submitters typed: they go into the table as text, and a url only becomes a link when it
// is http(s).

import { describeProblem, getJson } from "./api.js";
import { el, externalLink, notice, replace } from "./dom.js";
import { GROUPS } from "./picks.js";

const AXES = GROUPS.flatMap((group) => group.axes);

function headerRow(rubric) {
  return el(
    "tr",
    {},
    el("th", { attrs: { scope: "col" }, text: "Rank" }),
    el("th", { attrs: { scope: "col" }, text: "Runtime" }),
    el("th", { attrs: { scope: "col" }, text: "Vendor" }),
    el("th", { attrs: { scope: "col" }, className: "num", text: "Total /45" }),
    AXES.map((id) =>
      el(
        "th",
        { attrs: { scope: "col" }, className: "num" },
        el("abbr", { attrs: { title: rubric.axes[id]?.name ?? id }, text: id }),
      ),
    ),
    el("th", { attrs: { scope: "col" }, className: "num", text: "REG FIT" }),
  );
}

function entryRow(entry) {
  return el(
    "tr",
    { data: { submissionId: entry.submission_id } },
    el("td", { className: "num", text: String(entry.rank) }),
    el(
      "th",
      { attrs: { scope: "row" }, className: "runtime-name" },
      externalLink(entry.url, String(entry.runtime_name), "nofollow noopener noreferrer ugc"),
    ),
    el("td", { className: "vendor", text: String(entry.vendor) }),
    el("td", { className: "num total", text: String(entry.total) }),
    AXES.map((id) =>
      el("td", {
        className: "num",
        data: { score: entry.axes?.[id] ?? 0 },
        text: String(entry.axes?.[id] ?? ""),
      }),
    ),
    el("td", { className: "num", text: `${entry.reg_fit}/3` }),
  );
}

/** Loads and shows the leaderboard; a friendly message when it is empty or the server is not there. */
export async function loadLeaderboard(container, rubric) {
  container.setAttribute("aria-busy", "true");
  replace(container, notice("info", "Loading the leaderboard…"));
  const result = await getJson("v1/score/leaderboard?limit=25");
  container.removeAttribute("aria-busy");
  if (!result.ok) {
    replace(
      container,
      notice("info", "The leaderboard is not available right now. ", describeProblem(result).join(" ")),
    );
    return;
  }
  const entries = Array.isArray(result.body?.entries) ? result.body.entries : [];
  if (entries.length === 0) {
    replace(
      container,
      notice(
        "empty",
        "No agent runtime has been scored yet. Submit one with ",
        el("code", { text: "POST /v1/score/submit" }),
        " and it appears here once scored.",
      ),
    );
    return;
  }
  const total = Number(result.body.total) || entries.length;
  replace(
    container,
    el("p", {
      className: "muted",
      text: `The best ${entries.length} of ${total} scored runtimes, by total, then REG FIT.`,
    }),
    el(
      "div",
      {
        className: "table-scroll",
        attrs: { role: "region", "aria-labelledby": "leaderboard-heading", tabindex: 0 },
      },
      el(
        "table",
        { className: "board" },
        el("caption", { className: "visually-hidden", text: "Scored agent runtimes, best first" }),
        el("thead", {}, headerRow(rubric)),
        el("tbody", {}, entries.map(entryRow)),
      ),
    ),
  );
}
