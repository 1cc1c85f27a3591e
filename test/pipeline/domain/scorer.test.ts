import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Candidate } from "../../../pipeline/domain/candidate.ts";
import { excerpt } from "../../../pipeline/domain/excerpt.ts";
import { parseRubric } from "../../../pipeline/domain/rubric.ts";
import { type AxisId, ScoresSchema } from "../../../pipeline/domain/score.ts";
import {
  compileRubric,
  lengthFactor,
  levelFor,
  scoreCandidate,
  scoreWith,
} from "../../../pipeline/domain/scorer.ts";
import { EVIDENCE_MAX_CHARS } from "../../../pipeline/domain/signal-evidence.ts";
import { compileTerms, findTerms } from "../../../pipeline/domain/text-signals.ts";
import { tokenWords } from "../../../pipeline/domain/tokens.ts";

const rubric = parseRubric(
  JSON.parse(readFileSync(new URL("../../../data/rubric.json", import.meta.url), "utf8")),
);
const compiled = compileRubric(rubric);
// The axes alone, every paper in focus: what each axis's signals do, apart from the mission-focus factor.
const { focus: _focus, ...axesOnly } = rubric;
const unfocused = compileRubric(axesOnly);

const candidate = (summary: string, extra: Partial<Candidate> = {}): Candidate => ({
  id: "2611.00001",
  title: "A paper",
  summary,
  authors: ["A. Author"],
  categories: ["cs.AI"],
  ...extra,
});

describe("tokenWords", () => {
  it.each([
    ["Tool-Use, MCP!", ["tool", "use", "mcp"]],
    ["ＭＣＰ ｓｅｒｖｅｒｓ", ["mcp", "servers"]],
    ["Pseudonymisation – naïve café", ["pseudonymisation", "naive", "cafe"]],
    ["cafe\u0301 decomposed", ["cafe", "decomposed"]],
    ["p<0.001 and 0.77 ± 0.01", ["p", "<", "0", "001", "and", "0", "77", "±", "0", "01"]],
    ["github.com/org/repo", ["github", "com", "org", "repo"]],
    ["İstanbul ſtate", ["istanbul", "state"]],
    ["𝐀𝐠𝐞𝐧𝐭 math letters", ["agent", "math", "letters"]],
  ])("%j", (text, words) => {
    expect(tokenWords(text)).toEqual(words);
  });
});

describe("findTerms", () => {
  const terms = ["agent*", "tool calling", "human in the loop", "mcp", "p <", "open-source the"];
  const matcher = compileTerms(
    terms.map((term, key) => ({ term, key })),
    terms.length,
  );
  const found = (text: string) =>
    findTerms(matcher, [["summary", text]]).hits.flatMap((hit, key) => (hit ? [terms[key]] : []));

  it.each([
    ["Agentic systems and AGENTS.", ["agent*"]],
    ["A reagent, an agenda, an age.", []],
    ["Tool-calling and MCP servers.", ["tool calling", "mcp"]],
    ["A human-in-the-loop gate.", ["human in the loop"]],
    ["Human in the loop.", ["human in the loop"]],
    ["We study the tool. Calling it fails.", []],
    ["Significant at p<0.01.", ["p <"]],
    ["We open-source the code.", ["open-source the"]],
    ["ＭＣＰ in full width.", ["mcp"]],
    ["tool", []],
    ["", []],
  ])("%j", (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it("reports the first match of each term, its sentence, and how often it matched", () => {
    const text = "Intro. The agent calls tools, e.g. search. Another agent and agents.";
    const [hit] = findTerms(matcher, [["summary", text]]).hits;
    // "agents" right after "agent and" is the same mention.
    expect(hit).toMatchObject({ field: "summary", count: 2 });
    expect(hit && text.slice(hit.sentenceStart, hit.sentenceEnd)).toBe("The agent calls tools, e.g. search.");
    expect(hit && text.slice(hit.start, hit.end)).toBe("agent");
  });

  it("counts a term said again right away as one mention", () => {
    const count = (text: string) => findTerms(matcher, [["summary", text]]).hits[0]?.count;
    expect(count("Agent agent agent agent. Agents.")).toBe(1);
    expect(count("An agent acts on its own. Later the agent stops for a while. The agents rest.")).toBe(3);
  });

  it("leaves out a keyword list, its edges included, and keeps the prose around it", () => {
    const many = Array.from({ length: 12 }, (_, i) => `term${i}`);
    const listMatcher = compileTerms(
      many.map((term, key) => ({ term, key })),
      many.length,
    );
    const keys = (text: string) =>
      findTerms(listMatcher, [["summary", text]]).hits.flatMap((hit, key) => (hit ? [key] : []));
    const prose = `We study term0 in depth.${" Then some filler words follow.".repeat(4)}`;
    expect(keys(`${prose} ${many.slice(1, 9).join(", ")}.`)).toHaveLength(9);
    expect(keys(`${prose} ${many.slice(1).join(", ")}.`)).toEqual([0]);
    expect(keys(`${prose} ${many.slice(1).join(". ")}.`)).toEqual([0]);
  });

  it("cuts long sentences around the match and collapses whitespace", () => {
    const text = `${"lead ".repeat(80)}the agent\n  acts ${"tail ".repeat(80)}.`;
    const [hit] = findTerms(matcher, [["summary", text]]).hits;
    const quoted = hit ? excerpt(hit, 120) : "";
    expect(quoted).toMatch(/^….*the agent acts.*…$/);
    expect(quoted.length).toBeLessThanOrEqual(122);
  });
});

describe("levelFor", () => {
  it.each([
    [-3, 0],
    [0, 0],
    [1, 1],
    [3, 2],
    [4, 3],
    [7, 4],
    [8, 5],
    [40, 5],
  ])("%i points -> level %i", (points, level) => {
    expect(levelFor(points, [1, 2, 4, 6, 8])).toBe(level);
  });
});

describe("lengthFactor", () => {
  const norm = { reference_tokens: 200, exponent: 0.5, max_factor: 2, groups: [] };
  it.each([
    [200, 1],
    [800, 0.5],
    [50, 2],
    [10, 2],
    [0, 1],
  ])("%i words -> x%f", (words, factor) => {
    expect(lengthFactor(words, norm)).toBeCloseTo(factor, 10);
  });

  it("scales topic axes of a padded abstract down, and leaves research axes alone", () => {
    const core = "Agents call tools through MCP with human-in-the-loop approval. Code: github.com/a/b.";
    const padding = " Cats sit on mats.".repeat(60);
    const short = scoreWith(compiled, candidate(core));
    const long = scoreWith(compiled, candidate(core + padding));
    expect(long.groups.substrate + long.groups.governance).toBeLessThan(
      short.groups.substrate + short.groups.governance,
    );
    expect(long.groups.research).toBe(short.groups.research);
  });
});

describe("each axis sees its signals", () => {
  const cases: Array<[AxisId, string, string, number]> = [
    ["A1", "The agents orchestrate tool calling in a sandbox with multi-agent planning.", "A1.tool-use", 4],
    [
      "A2",
      "Agents share state through the Model Context Protocol (MCP) and agent memory.",
      "A2.protocols",
      3,
    ],
    ["A3", "It runs on-premises on a single GPU, cutting latency and token cost.", "A3.local", 3],
    [
      "A4",
      "A human-in-the-loop approval gate and guardrails keep the agent in check.",
      "A4.human-oversight",
      4,
    ],
    ["A5", "Every action is logged to an audit trail with provenance for auditors.", "A5.provenance", 4],
    ["A6", "We study prompt injection attacks and memory poisoning under a threat model.", "A6.injection", 5],
    ["A7", "We propose a novel method; ours is the first to address this.", "A7.first", 3],
    [
      "A8",
      "It outperforms baselines on two benchmarks; ablations and 95% confidence intervals over seeds.",
      "A8.statistics",
      5,
    ],
    [
      "A9",
      "We release code at https://github.com/org/repo and the weights on huggingface.co/org.",
      "A9.code-link",
      4,
    ],
  ];

  it.each(cases)("%s from %j", (axis, summary, signal, atLeast) => {
    const scores = scoreWith(unfocused, candidate(summary));
    expect(scores.axes[axis].score).toBeGreaterThanOrEqual(atLeast);
    expect(scores.axes[axis].evidence).toContainEqual({ signal, text: summary });
  });

  it.each(cases)("%s stays 0 for an off-topic abstract", (axis) => {
    const offTopic = candidate("Cats sit on mats. Dogs prefer sofas.", { title: "On pets" });
    expect(scoreWith(compiled, offTopic).axes[axis]).toEqual({ score: 0, evidence: [] });
  });

  it("lowers novelty and evidence for a survey or position paper", () => {
    const plain = scoreWith(compiled, candidate("We propose a novel agent benchmark with baselines."));
    const survey = scoreWith(
      compiled,
      candidate(
        "This survey of agents is a position paper. We propose a novel agent benchmark with baselines.",
      ),
    );
    expect(survey.axes.A7.score).toBeLessThan(plain.axes.A7.score);
    expect(survey.axes.A8.score).toBeLessThan(plain.axes.A8.score);
    expect(survey.axes.A8.evidence.map((e) => e.signal)).toContain("A8.no-evaluation");
  });

  it("reads the comment field: a code link there counts for A9", () => {
    const withLink = scoreWith(
      compiled,
      candidate("A method.", { comment: "Code: https://github.com/org/repo" }),
    );
    expect(withLink.axes.A9.evidence).toEqual([
      { signal: "A9.code-link", text: "Code: https://github.com/org/repo" },
    ]);
  });

  it("counts a topic said in the title or repeated more than one said once (emphasis)", () => {
    const once = scoreWith(compiled, candidate("We use an agent.")).axes.A1.score;
    const central = scoreWith(
      compiled,
      candidate("An agent. The agent acts. Agents win.", { title: "Agents" }),
    ).axes.A1.score;
    expect(central).toBeGreaterThan(once);
  });
});

describe("mission focus", () => {
  const focusOf = (summary: string, extra: Partial<Candidate> = {}) => {
    const scores = scoreWith(compiled, candidate(summary, extra));
    if (!scores.focus) throw new Error("the published rubric has a focus section");
    return { scores, focus: scores.focus };
  };
  const safety =
    "We study hallucination and safety failures. It outperforms baselines on benchmarks; ablations over seeds.";

  it("keeps the full points of an LLM-agent paper and names what put it in focus", () => {
    const { focus } = focusOf(`LLM agents call tools over MCP. ${safety}`, { title: "Safe LLM agents" });
    expect(focus).toMatchObject({ level: "core", factor: 1 });
    expect(focus.evidence.map((e) => e.signal)).toEqual(
      expect.arrayContaining(["FOCUS.agents", "FOCUS.llm", "FOCUS.primary-category"]),
    );
  });

  it("scales down a vision paper whose safety words are only context (regression: 2025-11-19 picks)", () => {
    const vision = focusOf(`Video segmentation of driving scenes from camera images. ${safety}`, {
      title: "Robust video segmentation",
      categories: ["cs.CV", "cs.AI"],
    });
    const agents = focusOf(`LLM agents call tools over MCP. ${safety}`, { title: "Safe LLM agents" });
    expect(vision.focus.level).toBe("off-mission");
    expect(vision.focus.factor).toBeLessThan(0.5);
    expect(vision.focus.evidence).toContainEqual({ signal: "FOCUS.primary-category", text: "cs.CV (-3)" });
    expect(vision.scores.total).toBeLessThan(agents.scores.total / 2);
  });

  it("reads the prior of the primary (first) category only", () => {
    const summary = "LLM agents call tools over MCP.";
    const primaryCv = focusOf(summary, { categories: ["cs.CV", "cs.MA"] }).focus.points;
    const crossListedCv = focusOf(summary, { categories: ["cs.MA", "cs.CV"] }).focus.points;
    expect(crossListedCv - primaryCv).toBe(2 - -3);
    expect(focusOf(summary, { categories: [] }).focus.evidence.map((e) => e.signal)).not.toContain(
      "FOCUS.primary-category",
    );
  });

  it("ranks an agent built for one field below the same work on the agent system", () => {
    const system = "A multi-agent LLM framework orchestrates tool calling; it outperforms baselines.";
    const applied = `${system} We apply it to clinical medical records of patients.`;
    expect(focusOf(applied).focus.points).toBeLessThan(focusOf(system).focus.points);
  });

  it("leaves scores as they were when a rubric has no focus section", () => {
    const scores = scoreWith(unfocused, candidate("Video segmentation.", { categories: ["cs.CV"] }));
    expect(scores.focus).toBeUndefined();
  });
});

describe("REG FIT", () => {
  const soundness = "We state our assumptions and limitations under an explicit threat model.";
  const validation = "It outperforms baselines on held-out data with 95% confidence intervals.";
  const monitoring = "Deployed with drift monitoring and an audit trail of every decision.";
  const cases: Array<[string, string, number, RegExp]> = [
    [
      "a position paper",
      "This position paper argues that agents need rules.",
      1,
      /Missing .*validation: validate/,
    ],
    [
      "validated, nothing else",
      validation,
      2,
      /Missing conceptual soundness: .*ongoing monitoring: define monitoring/,
    ],
    ["all three shown", [soundness, validation, monitoring].join(" "), 3, /^REG FIT 3, likely passes\./],
    [
      "patient data without protection",
      [soundness, validation, monitoring, "We train on patient records."].join(" "),
      2,
      /data protection for the health data it processes: carry out a DPIA/,
    ],
    [
      "patient data, pseudonymised on premises",
      [
        soundness,
        validation,
        monitoring,
        "Patient records are pseudonymised and processed on-premises.",
      ].join(" "),
      3,
      /data protection \(privacy protection, controlled processing\)/,
    ],
  ];

  it.each(cases)("%s", (_name, summary, score, rationale) => {
    const regFit = scoreWith(compiled, candidate(summary)).reg_fit;
    expect(regFit.score).toBe(score);
    expect(regFit.rationale).toMatch(rationale);
    expect(regFit.evidence.every((e) => e.signal.startsWith("REG."))).toBe(true);
  });
});

describe("determinism and bounds", () => {
  const realistic = candidate(
    "Agents call tools over MCP. We propose a guardrail; it outperforms baselines (p < 0.01). Code: github.com/a/b.",
    { title: "Guarded agents", comment: "12 pages" },
  );

  it("gives byte-identical JSON for the same input, compiled or not, with a fresh rubric copy", () => {
    const again = parseRubric(JSON.parse(JSON.stringify(rubric)));
    const first = JSON.stringify(scoreWith(compiled, realistic));
    expect(JSON.stringify(scoreWith(compiled, structuredClone(realistic)))).toBe(first);
    expect(JSON.stringify(scoreCandidate(realistic, again))).toBe(first);
    expect(JSON.stringify(scoreWith(compileRubric(again), realistic))).toBe(first);
  });

  it("stamps the scorer and rubric version and lists axes A1..A9 in order", () => {
    const scores = scoreWith(compiled, realistic);
    expect(scores.scorer).toBe("rules");
    expect(scores.rubric_version).toBe(rubric.version);
    expect(Object.keys(scores.axes)).toEqual(["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"]);
  });

  const vocabulary = rubric.axes.flatMap((axis) => axis.signals.flatMap((signal) => signal.terms));
  const word = fc.oneof(
    fc.constantFrom(...vocabulary.map((term) => term.replace("*", "ing"))),
    fc.constantFrom(".", ". ", "! ", "e.g.", "\n", "—", "İ", "ﬁ", "±"),
    fc.string({ unit: "grapheme", maxLength: 12 }),
  );
  const text = fc.array(word, { maxLength: 120 }).map((words) => words.join(" "));

  it("keeps every score in bounds and every evidence quote short, for random text", () => {
    fc.assert(
      fc.property(text, text, fc.option(text, { nil: undefined }), (title, summary, comment) => {
        const scores = scoreWith(compiled, candidate(summary, { title: title || "t", comment }));
        expect(ScoresSchema.safeParse(scores).success).toBe(true);
        const sum = Object.values(scores.axes).reduce((total, axis) => total + axis.score, 0);
        expect(scores.total).toBe(sum);
        const quotes = [
          ...Object.values(scores.axes).flatMap((axis) => axis.evidence),
          ...scores.reg_fit.evidence,
        ];
        for (const quote of quotes) expect(quote.text.length).toBeLessThanOrEqual(EVIDENCE_MAX_CHARS + 2);
        expect(
          JSON.stringify(scoreWith(compiled, candidate(summary, { title: title || "t", comment }))),
        ).toBe(JSON.stringify(scores));
      }),
      { numRuns: 300 },
    );
  });
});
