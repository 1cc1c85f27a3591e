import type { BenchNote } from "./bench-note.ts";
import type { FirmPick } from "./bench-scoring.ts";
import { escapeHtml } from "./html-escape.ts";

// The weekly note as a firm forwards it: Markdown for mail and wikis, HTML for reading and printing.
// Both say the same things in the same order; the HTML loads nothing (inline CSS, no scripts, no
// images, no links to fetch), and every text that came from a paper or a firm is escaped.

const html = escapeHtml;
// CommonMark reads these anywhere in a line: escapes, code spans, emphasis, links and images (no
// link or image starts without "["), autolinks and raw HTML, and entity references.
// An underscore between two letters or digits never is emphasis (snake_case stays as it is).
const INLINE = /[\\`*[\]<]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])|&(?=#?[A-Za-z0-9]+;)/gu;

/**
 * A text as inline Markdown that reads back as the same text: backslashes only where CommonMark would
 * otherwise read markup, so the note stays plain to read in a mail or a chat (`2606.12674`,
 * `2026-W47`, `day(s)` as they are). Line breaks inside a text become spaces.
 * @example inlineMd("*New* <b> & 2606.12674") // "\\*New\\* \\<b> & 2606.12674"
 */
export function inlineMd(text: string | number): string {
  return String(text)
    .replace(/\s*[\r\n]+\s*/g, " ")
    .trim()
    .replace(INLINE, "\\$&");
}

/**
 * A text that starts a block (a paragraph, a list item's content): also what would open a heading, a
 * block quote, a list item or a thematic break there.
 * @example blockMd("1. - > x") // "1\\. - > x"
 */
export function blockMd(text: string | number): string {
  return inlineMd(text)
    .replace(/^(?:#{1,6}(?=\s|$)|>|[-+](?=\s|$)|-(?=[-\s]*$))/, "\\$&")
    .replace(/^(\d{1,9})(?=[.)](?:\s|$))/, "$1\\");
}

/** A heading's text: also a closing sequence of "#" at its end, which would be dropped. */
const headingMd = (text: string): string => inlineMd(text).replace(/ (#+)$/, " \\$1");

const signed = (value: number): string => (value > 0 ? `+${value}` : String(value));

export interface Section {
  title: string;
  empty: string;
  items: string[][];
}

function pickLines(pick: FirmPick): string[] {
  const axes = pick.axes
    .slice(0, 3)
    .map((axis) => `${axis.axis} ${axis.score} x ${axis.weight} = ${axis.points}`)
    .join(", ");
  const why = [
    ...pick.axes
      .slice(0, 3)
      .flatMap((axis) => axis.evidence.slice(0, 1).map((e) => `${axis.axis}: ${e.text}`)),
    ...pick.signals.map(
      (signal) => `signal ${signal.axis} "${signal.term}" (+${signal.weight}): ${signal.text}`,
    ),
  ];
  return [
    `${pick.date} #${pick.rank} ${pick.arxiv_id}: ${pick.title}`,
    `firm total ${pick.firm_total} (public total ${pick.public_total}/45, REG FIT ${pick.reg_fit}); ${axes}; firm rubric v${pick.firm_rubric_version}, public rubric ${pick.rubric_version}${pick.public_kept ? "; also a public pick" : ""}`,
    ...why.map((line) => `why: ${line}`),
  ];
}

/** The note's sections as lines of plain text: the first line of an item is its heading. */
export function noteSections(note: BenchNote): Section[] {
  return [
    {
      title: "Firm picks",
      empty: "No firm picks this week.",
      items: note.picks.map(pickLines),
    },
    {
      title: "Watched papers: citations",
      empty: "No watched papers.",
      items: note.citations.map((change) => [
        change.change === null
          ? `${change.arxiv_id}: no figures from the citation index this week`
          : `${change.arxiv_id}: ${change.from} to ${change.to} citations (${signed(change.change)}) from ${change.from_date} to ${change.to_date}`,
        ...change.new_citing.map(
          (paper) =>
            `newly citing: ${paper.title ?? "(untitled)"}${paper.arxiv_id ? ` (${paper.arxiv_id})` : ""}${paper.year ? `, ${paper.year}` : ""}`,
        ),
      ]),
    },
    {
      title: "Author and term hits",
      empty: "No candidate by a watched author or on a watched term.",
      items: note.hits.map((hit) => [
        `${hit.date} ${hit.arxiv_id}: ${hit.title}`,
        ...(hit.authors.length > 0 ? [`authors: ${hit.authors.join(", ")}`] : []),
        ...hit.terms.map((term) => `term "${term.term}": ${term.text}`),
      ]),
    },
    {
      title: "Public rubric",
      empty: "No change of the public rubric.",
      items: note.public_rubric_changes.map((change) => [
        `${change.date}: public rubric changed from ${change.from} to ${change.to}`,
      ]),
    },
  ];
}

export const headline = (note: BenchNote): string => `Weekly note for ${note.firm}, ${note.week}`;

export const coverage = (note: BenchNote): string =>
  note.published_days.length === 0
    ? `No published day from ${note.first_day} to ${note.last_day}: there is no data for this week.`
    : `${note.first_day} to ${note.last_day}: ${note.published_days.length} published day(s), ${note.picks.length} firm pick(s), ${note.hits.length} hit(s). Built ${note.built_at}.`;

/** The note as Markdown, every text escaped where CommonMark would read it as markup. */
export function noteMarkdown(note: BenchNote): string {
  const out = [`# ${headingMd(headline(note))}`, "", blockMd(coverage(note))];
  for (const section of noteSections(note)) {
    out.push("", `## ${headingMd(section.title)}`, "");
    if (section.items.length === 0) out.push(blockMd(section.empty));
    for (const [head, ...rest] of section.items) {
      out.push(`- **${inlineMd(head ?? "")}**`);
      for (const line of rest) out.push(`  - ${blockMd(line)}`);
    }
  }
  return `${out.join("\n")}\n`;
}

const STYLE = [
  "body{font:15px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}",
  "h1{font-size:1.5rem}h2{font-size:1.15rem;border-bottom:1px solid #999;margin-top:2rem}",
  "li{margin:.4rem 0}li ul{font-size:.92rem;color:#333}.empty{color:#555;font-style:italic}",
  "@media print{body{margin:0;max-width:none}h2{break-after:avoid}li{break-inside:avoid}}",
].join("");

/** The note as one printable HTML page with inline CSS and nothing to fetch, every text escaped. */
export function noteHtml(note: BenchNote): string {
  const body = noteSections(note)
    .map((section) => {
      const items =
        section.items.length === 0
          ? `<p class="empty">${html(section.empty)}</p>`
          : `<ul>${section.items
              .map(
                ([head, ...rest]) =>
                  `<li><strong>${html(head ?? "")}</strong>${rest.length > 0 ? `<ul>${rest.map((line) => `<li>${html(line)}</li>`).join("")}</ul>` : ""}</li>`,
              )
              .join("")}</ul>`;
      return `<section><h2>${html(section.title)}</h2>${items}</section>`;
    })
    .join("\n");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    // No network at all, even if a text slipped through: the page may only use its own inline style.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${html(headline(note))}</title><style>${STYLE}</style></head>`,
    `<body><h1>${html(headline(note))}</h1><p>${html(coverage(note))}</p>`,
    body,
    "</body></html>",
    "",
  ].join("\n");
}
