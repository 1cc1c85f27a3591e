import { describe, expect, it } from "vitest";
import { buildNote } from "../../../../pipeline/domain/bench-note.ts";
import {
  coverage,
  headline,
  noteHtml,
  noteMarkdown,
  noteSections,
} from "../../../../pipeline/domain/bench-note-render.ts";
import { DEFAULT_FIRM_RUBRIC, resolveFirmRubric } from "../../../../pipeline/domain/bench-rubric.ts";
import { type CandidateText, firmDay, firmDays } from "../../../../pipeline/domain/bench-scoring.ts";
import { citationChanges, type TrackingDay } from "../../../../pipeline/domain/bench-tracking.ts";
import { canonicalWatchlist, EMPTY_WATCHLIST } from "../../../../pipeline/domain/bench-watchlist.ts";
import { isoWeekOf, previousWeek, weekDays } from "../../../../pipeline/domain/bench-week.ts";
import type { Screened } from "../../../../pipeline/domain/run-record.ts";
import { AXIS_IDS, type AxisId, type Scores } from "../../../../pipeline/domain/score.ts";
import { readMarkdown } from "../../../helpers/commonmark.ts";

const AT = "2026-11-23T08:00:00.000Z";

function screened(
  id: string,
  levels: Partial<Record<AxisId, number>>,
  regFit = 2,
  title = `Paper ${id}`,
): Screened {
  const axes = Object.fromEntries(
    AXIS_IDS.map((axis) => [
      axis,
      {
        score: levels[axis] ?? 0,
        evidence: levels[axis] ? [{ signal: `${axis}-sig`, text: `${axis} evidence of ${id}` }] : [],
      },
    ]),
  ) as Scores["axes"];
  const total = Object.values(levels).reduce((sum, level) => sum + (level ?? 0), 0);
  return {
    id,
    title,
    kept: false,
    rank: null,
    reason: "test",
    scores: {
      scorer: "rules",
      rubric_version: "2026.11.2",
      axes,
      groups: { substrate: 0, governance: 0, research: 0 },
      total,
      reg_fit: { score: regFit, rationale: "", evidence: [] },
    },
  };
}

describe("watchlist", () => {
  it.each([
    [["2401.12345"], ["2401.12345"]],
    [["arXiv:2401.12345v2", "2401.12345", "https://arxiv.org/pdf/2401.12345v3.pdf"], ["2401.12345"]],
    [["https://arxiv.org/abs/cs/0112017"], ["cs/0112017"]],
    [
      ["2401.99999", "2401.12345"],
      ["2401.99999", "2401.12345"],
    ],
  ])("stores %j as %j", (papers, expected) => {
    const result = canonicalWatchlist({ papers }, AT);
    expect(result.ok && result.value.papers).toEqual(expected);
  });

  it.each([
    [{ papers: ["2401.12345", "not-an-id"] }, ["papers", 1]],
    [{ terms: ["ok", "*"] }, ["terms", 1]],
    [{ terms: ["model*risk"] }, ["terms", 0]],
  ])("refuses %j at %j", (request, loc) => {
    const result = canonicalWatchlist(request, AT);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((problem) => problem.loc)).toEqual([loc]);
  });

  it("squashes spaces and drops repeats regardless of case", () => {
    const result = canonicalWatchlist(
      { authors: ["Ada  Lovelace", "ada lovelace"], terms: ["Model Risk", "model risk"] },
      AT,
    );
    expect(result.ok && [result.value.authors, result.value.terms]).toEqual([
      ["Ada Lovelace"],
      ["Model Risk"],
    ]);
  });
});

describe("firm rubric", () => {
  it("fills absent weights with 1 and thresholds with the public ones", () => {
    const result = resolveFirmRubric({ weights: { A6: 3 } }, 2, AT);
    expect(result.ok && result.value).toMatchObject({ version: 2, min_total: DEFAULT_FIRM_RUBRIC.min_total });
    expect(result.ok && result.value.weights).toEqual({
      A1: 1,
      A2: 1,
      A3: 1,
      A4: 1,
      A5: 1,
      A6: 3,
      A7: 1,
      A8: 1,
      A9: 1,
    });
  });

  it("refuses a signal term the matcher cannot use, with its place", () => {
    const result = resolveFirmRubric({ signals: [{ axis: "A6", terms: ["fine", "a*"], weight: 1 }] }, 1, AT);
    expect(!result.ok && result.problems.map((p) => p.loc)).toEqual([["signals", 0, "terms", 1]]);
  });
});

describe("ISO weeks", () => {
  it.each([
    ["2026-11-23", "2026-W48"],
    ["2026-11-22", "2026-W47"],
    ["2026-01-01", "2026-W01"],
    ["2021-01-03", "2020-W53"],
    ["2024-12-30", "2025-W01"],
  ])("%s is in %s", (day, week) => {
    expect(isoWeekOf(day)).toBe(week);
  });

  it.each([
    ["2026-W47", "2026-11-16", "2026-11-22"],
    ["2020-W53", "2020-12-28", "2021-01-03"],
  ])("%s runs from %s to %s", (week, first, last) => {
    const days = weekDays(week);
    expect([days?.[0], days?.[6], days?.length]).toEqual([first, last, 7]);
  });

  it.each(["2025-W53", "2026-W00", "2026-47", "2026-W7"])("%s is no week", (week) => {
    expect(weekDays(week)).toBeNull();
  });

  it("a Monday builds the week before", () => {
    expect(previousWeek("2026-11-23")).toBe("2026-W47");
  });
});

describe("a day through a firm's rubric", () => {
  const day = [
    screened("2611.00001", { A1: 5, A2: 4, A3: 4, A6: 0 }, 2, "Fast agent runtime"),
    screened("2611.00002", { A1: 1, A6: 5, A5: 3, A8: 2 }, 3, "Prompt injection defences for banks"),
    screened("2611.00003", { A1: 2, A6: 1 }, 1, "Low REG FIT"),
  ];
  const texts = new Map<string, CandidateText>([
    ["2611.00001", { summary: "We schedule tools fast.", authors: ["Grace Hopper"] }],
    [
      "2611.00002",
      { summary: "We study model risk in lending. It is robust.", authors: ["Ada Lovelace", "X Y"] },
    ],
  ]);

  it("the public weights put the runtime paper first, A6 x3 puts the governance paper first", () => {
    const plain = firmDay({
      date: "2026-11-20",
      publicRubricVersion: "2026.11.2",
      screened: day,
      texts,
      rubric: { ...DEFAULT_FIRM_RUBRIC, min_total: 0 },
      watchlist: EMPTY_WATCHLIST,
    });
    expect(plain.picks.map((pick) => pick.arxiv_id)).toEqual(["2611.00001", "2611.00002"]);
    const rubric = resolveFirmRubric({ weights: { A6: 3 }, min_total: 0 }, 4, AT);
    if (!rubric.ok) throw new Error("rubric");
    const governance = firmDay({
      date: "2026-11-20",
      publicRubricVersion: "2026.11.2",
      screened: day,
      texts,
      rubric: rubric.value,
      watchlist: EMPTY_WATCHLIST,
    });
    const first = governance.picks[0];
    expect(first?.arxiv_id).toBe("2611.00002");
    expect(first?.firm_total).toBe(1 + 15 + 3 + 2);
    expect(first?.firm_rubric_version).toBe(4);
    expect(first?.axes[0]).toMatchObject({ axis: "A6", score: 5, weight: 3, points: 15 });
    expect(first?.axes[0]?.evidence[0]?.text).toBe("A6 evidence of 2611.00002");
  });

  it("a firm signal adds its weight and quotes its sentence; thresholds and max_picks apply", () => {
    const rubric = resolveFirmRubric(
      { signals: [{ axis: "A6", terms: ["model risk"], weight: 10 }], min_total: 20, max_picks: 1 },
      1,
      AT,
    );
    if (!rubric.ok) throw new Error("rubric");
    const view = firmDay({
      date: "2026-11-20",
      publicRubricVersion: "2026.11.2",
      screened: day,
      texts,
      rubric: rubric.value,
      watchlist: EMPTY_WATCHLIST,
    });
    expect(view.picks.map((pick) => [pick.arxiv_id, pick.firm_total])).toEqual([["2611.00002", 21]]);
    expect(view.picks[0]?.signals).toEqual([
      { axis: "A6", term: "model risk", weight: 10, text: "We study model risk in lending." },
    ]);
  });

  it("finds watched authors and terms", () => {
    const watchlist = { ...EMPTY_WATCHLIST, authors: ["ada lovelace"], terms: ["runtime", "robust*"] };
    const view = firmDay({
      date: "2026-11-20",
      publicRubricVersion: "2026.11.2",
      screened: day,
      texts,
      rubric: DEFAULT_FIRM_RUBRIC,
      watchlist,
    });
    expect(view.hits.map((hit) => [hit.arxiv_id, hit.authors, hit.terms.map((t) => t.term)])).toEqual([
      ["2611.00001", [], ["runtime"]],
      ["2611.00002", ["Ada Lovelace"], ["robust*"]],
    ]);
  });
});

const tracking = (date: string, count: number, citing: string[]): TrackingDay => ({
  date,
  papers: [
    {
      arxiv_id: "2401.12345",
      found: true,
      source: "semantic_scholar",
      citation_count: count,
      influential_citation_count: 0,
      citing: citing.map((title) => ({ title, arxiv_id: null, year: 2026 })),
      reason: null,
    },
  ],
});

describe("citation changes", () => {
  it.each([
    [
      "from the last record before the week",
      [
        tracking("2026-11-13", 10, ["a"]),
        tracking("2026-11-18", 12, ["a"]),
        tracking("2026-11-20", 15, ["a", "b"]),
      ],
      10,
      15,
      5,
      ["b"],
    ],
    [
      "from the first record in the week",
      [tracking("2026-11-18", 12, ["a"]), tracking("2026-11-20", 11, ["a"])],
      12,
      11,
      -1,
      [],
    ],
    ["a single record: no change", [tracking("2026-11-18", 12, ["a"])], 12, 12, 0, []],
    [
      "records after the week are left out",
      [tracking("2026-11-18", 12, []), tracking("2026-11-24", 99, ["z"])],
      12,
      12,
      0,
      [],
    ],
  ])("%s", (_, days, from, to, change, newCiting) => {
    const [result] = citationChanges(["2401.12345"], days, "2026-11-16", "2026-11-22");
    expect([result?.from, result?.to, result?.change, result?.new_citing.map((p) => p.title)]).toEqual([
      from,
      to,
      change,
      newCiting,
    ]);
  });

  it("no figures: change null", () => {
    expect(citationChanges(["2401.00001"], [], "2026-11-16", "2026-11-22")[0]?.change).toBeNull();
  });
});

describe("the weekly note", () => {
  const hostile = screened(
    "2611.00009",
    { A6: 5, A4: 4 },
    3,
    `<script>alert(1)</script> *bold* [x](http://e.example)`,
  );
  const view = firmDay({
    date: "2026-11-18",
    publicRubricVersion: "2026.11.3",
    screened: [hostile],
    texts: new Map(),
    rubric: { ...DEFAULT_FIRM_RUBRIC, min_total: 0 },
    watchlist: EMPTY_WATCHLIST,
  });
  const before = { ...view, date: "2026-11-13", public_rubric_version: "2026.11.2", picks: [], hits: [] };
  const days = weekDays("2026-W47") as string[];

  it("says the public rubric changed, and has every section", () => {
    const note = buildNote({
      firm: "acme",
      week: "2026-W47",
      days,
      views: [view],
      before,
      tracking: [],
      watchedPapers: [],
      builtAt: AT,
    });
    expect(note.public_rubric_changes).toEqual([{ date: "2026-11-18", from: "2026.11.2", to: "2026.11.3" }]);
    expect(note.picks).toHaveLength(1);
    const markdown = noteMarkdown(note);
    for (const heading of [
      "## Firm picks",
      "## Watched papers: citations",
      "## Author and term hits",
      "## Public rubric",
    ]) {
      expect(markdown).toContain(heading);
    }
    // Read by a CommonMark parser, the note is its sections' plain text, with no markup from a title.
    const intended = [
      { kind: "h1", text: headline(note), marks: [] },
      { kind: "p", text: coverage(note), marks: [] },
      ...noteSections(note).flatMap((section) => [
        { kind: "h2", text: section.title, marks: [] },
        ...(section.items.length === 0 ? [{ kind: "p", text: section.empty, marks: [] }] : []),
        ...section.items.flatMap(([head, ...rest]) => [
          { kind: "li1", text: head, marks: ["strong"] },
          ...rest.map((line) => ({ kind: "li2", text: line, marks: [] })),
        ]),
      ]),
    ];
    expect(readMarkdown(markdown)).toEqual(intended);
    expect(markdown).toContain("\\<script>alert(1)\\</script> \\*bold\\* \\[x\\](http://e.example)");
    expect(markdown).toContain("# Weekly note for acme, 2026-W47\n");
    expect(markdown).toContain("2026-11-18 #1 2611.00009:");
    expect(markdown).not.toMatch(/\\[-.()#!|~{}+]/);
    const page = noteHtml(note);
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).not.toMatch(/<script|src=|href=|@import|url\(/);
  });

  it("a week with no data is a valid note that says so", () => {
    const note = buildNote({
      firm: "acme",
      week: "2026-W47",
      days,
      views: [],
      before: null,
      tracking: [],
      watchedPapers: [],
      builtAt: AT,
    });
    expect(note.published_days).toEqual([]);
    expect(noteMarkdown(note)).toContain("there is no data for this week");
    expect(noteHtml(note)).toContain("No firm picks this week.");
  });
});

describe("many firms in one pass", () => {
  const day = [
    screened(
      "2611.00011",
      { A1: 3, A6: 4 },
      2,
      "Agents audit logs privacy latency serving memory tools sandbox guardrails oversight",
    ),
    screened("2611.00012", { A3: 4 }, 2, "Serving latency"),
  ];
  const a = { rubric: DEFAULT_FIRM_RUBRIC, watchlist: { ...EMPTY_WATCHLIST, terms: ["latency", "privacy"] } };
  const gov = resolveFirmRubric(
    { weights: { A6: 3 }, signals: [{ axis: "A6", terms: ["guardrails"], weight: 1 }] },
    1,
    AT,
  );
  if (!gov.ok) throw new Error("rubric");
  const b = { rubric: gov.value, watchlist: { ...EMPTY_WATCHLIST, terms: ["audit logs", "latency"] } };
  const input = {
    date: "2026-11-20",
    publicRubricVersion: "v",
    screened: day,
    texts: new Map<string, CandidateText>(),
  };

  it("gives each firm what it would get alone", () => {
    expect(firmDays({ ...input, firms: [a, b] })).toEqual([
      firmDay({ ...input, ...a }),
      firmDay({ ...input, ...b }),
    ]);
  });

  it("finds a firm's terms in a title that reads like a keyword list (regression: the public list guard dropped them)", () => {
    const many = {
      rubric: DEFAULT_FIRM_RUBRIC,
      watchlist: {
        ...EMPTY_WATCHLIST,
        terms: [
          "agents",
          "audit logs",
          "privacy",
          "latency",
          "serving",
          "memory",
          "tools",
          "sandbox",
          "guardrails",
          "oversight",
        ],
      },
    };
    const [view] = firmDays({ ...input, firms: [many] });
    expect(view?.hits[0]?.terms).toHaveLength(10);
  });
});
