// The shown day's citation graph: its picks with citation data in the middle, their most-cited
// references on the left (arrows into the pick), their most-cited citing papers on the right (arrows
// out of it), and arcs between picks that cite each other. The list beside it says the same in words.

import { el, externalLink, notice, replace } from "./dom.js";
import { figureSvg, svg } from "./svg.js";

const PER_PICK = 3;
const clip = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);
const paperName = (paper) => paper.title ?? (paper.arxiv_id ? `arXiv:${paper.arxiv_id}` : "untitled");

function drawing(picks) {
  const rowH = 30;
  const width = 760;
  const columns = { left: 10, middle: 275, right: 540, width: 210 };
  const nodes = { left: [], right: [] };
  const place = (side, paper, pick) => {
    const key = paper.url ?? paper.arxiv_id ?? paper.title;
    let node = nodes[side].find((entry) => entry.key === key);
    if (!node) {
      node = { key, paper, picks: [] };
      nodes[side].push(node);
    }
    node.picks.push(pick.arxiv_id);
  };
  for (const pick of picks) {
    for (const paper of pick.citations.top_references.slice(0, PER_PICK)) place("left", paper, pick);
    for (const paper of pick.citations.top_citing.slice(0, PER_PICK)) place("right", paper, pick);
  }
  const rows = Math.max(picks.length, nodes.left.length, nodes.right.length, 1);
  const height = rows * rowH + 40;
  const y = (index, count) => 30 + ((index + 0.5) * (rows * rowH)) / count;
  const pickY = new Map(picks.map((pick, index) => [pick.arxiv_id, y(index, picks.length)]));
  const box = (x, cy, label, full, className) =>
    svg(
      "g",
      { class: className },
      svg("title", {}, full),
      svg("rect", { x, y: cy - 11, width: columns.width, height: 22, rx: 4 }),
      svg("text", { x: x + 6, y: cy + 4 }, clip(label, 30)),
    );
  const edges = [];
  for (const [side, list] of Object.entries(nodes)) {
    list.forEach((node, index) => {
      const ny = y(index, list.length);
      node.y = ny;
      for (const id of node.picks) {
        const py = pickY.get(id);
        edges.push(
          side === "left"
            ? svg("line", {
                class: "edge edge-reference",
                x1: columns.left + columns.width,
                y1: ny,
                x2: columns.middle - 4,
                y2: py,
                "marker-end": "url(#arrow)",
              })
            : svg("line", {
                class: "edge edge-citing",
                x1: columns.right - 4,
                y1: ny,
                x2: columns.middle + columns.width,
                y2: py,
                "marker-end": "url(#arrow)",
              }),
        );
      }
    });
  }
  for (const pick of picks) {
    for (const cited of pick.citations.cites_picks ?? []) {
      const from = pickY.get(pick.arxiv_id);
      const to = pickY.get(cited);
      if (to === undefined) continue;
      const x = columns.middle + columns.width;
      edges.push(
        svg("path", {
          class: "edge edge-pick",
          d: `M ${x} ${from} C ${x + 40} ${from}, ${x + 40} ${to}, ${x + 4} ${to}`,
          "marker-end": "url(#arrow)",
        }),
      );
    }
  }
  const defs = svg(
    "defs",
    {},
    svg(
      "marker",
      {
        id: "arrow",
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 6,
        markerHeight: 6,
        orient: "auto-start-reverse",
      },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head" }),
    ),
  );
  const heads = [
    svg("text", { class: "graph-head", x: columns.left, y: 16 }, "Most-cited references"),
    svg("text", { class: "graph-head", x: columns.middle, y: 16 }, "Picks of the day"),
    svg("text", { class: "graph-head", x: columns.right, y: 16 }, "Most-cited citing papers"),
  ];
  const description =
    `${picks.length} picks with citation data, ${nodes.left.length} of their most-cited references ` +
    `and ${nodes.right.length} of their most-cited citing papers; the list beside the drawing names them.`;
  return figureSvg(
    { width, height, title: "Citation graph of the day's picks", description, className: "graph" },
    defs,
    heads,
    edges,
    nodes.left.map((node) =>
      box(columns.left, node.y, paperName(node.paper), paperName(node.paper), "node node-reference"),
    ),
    picks.map((pick) =>
      box(
        columns.middle,
        pickY.get(pick.arxiv_id),
        pick.title,
        `${pick.title} (arXiv:${pick.arxiv_id})`,
        "node node-pick",
      ),
    ),
    nodes.right.map((node) =>
      box(columns.right, node.y, paperName(node.paper), paperName(node.paper), "node node-citing"),
    ),
  );
}

function paperList(label, papers) {
  if (!papers.length) return null;
  return el(
    "li",
    {},
    `${label}: `,
    el(
      "ul",
      {},
      papers.map((paper) =>
        el(
          "li",
          {},
          externalLink(paper.url, paperName(paper)),
          paper.citation_count === null || paper.citation_count === undefined
            ? ""
            : ` (${paper.citation_count} citations)`,
        ),
      ),
    ),
  );
}

function listOf(picks, titles) {
  const name = (id) => titles.get(id) ?? `arXiv:${id}`;
  return el(
    "ul",
    { className: "graph-list" },
    picks.map((pick) => {
      const c = pick.citations;
      return el(
        "li",
        { data: { arxivId: pick.arxiv_id } },
        el("strong", { text: pick.title }),
        ` (${c.citation_count} citations, ${c.reference_count} references)`,
        el(
          "ul",
          {},
          c.cites_picks?.length
            ? el("li", { text: `Cites picks: ${c.cites_picks.map(name).join("; ")}` })
            : null,
          c.cited_by_picks?.length
            ? el("li", { text: `Cited by picks: ${c.cited_by_picks.map(name).join("; ")}` })
            : null,
          paperList("Most-cited references", c.top_references.slice(0, PER_PICK)),
          paperList("Most-cited citing papers", c.top_citing.slice(0, PER_PICK)),
        ),
      );
    }),
  );
}

/** Fills `container` with the day's graph and its list, or says that the day has no citation data. */
export function renderGraph(container, day) {
  const picks = day.picks.filter((pick) => pick.citations?.status === "found");
  if (picks.length === 0) {
    const looked = day.picks.some((pick) => pick.citations);
    replace(
      container,
      notice(
        "empty",
        looked
          ? "The citation index had no data for this day's picks, so there is no citation graph."
          : "This day has no citation data: citations were not looked up when it was published.",
      ),
    );
    return;
  }
  const titles = new Map(day.picks.map((pick) => [pick.arxiv_id, pick.title]));
  const illustrative = picks.find((pick) => pick.citations.illustrative)?.citations.illustrative;
  replace(
    container,
    el(
      "div",
      { className: "graph-figure" },
      illustrative
        ? el("p", {
            className: "graph-illustrative muted",
            text: `These are ${illustrative.note}, written ${illustrative.written_at}; a live run looks them up at the citation index.`,
          })
        : null,
      drawing(picks),
    ),
    listOf(picks, titles),
  );
}
