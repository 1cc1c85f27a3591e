import { describe, expect, it } from "vitest";
import {
  buildVocabulary,
  type FeatureSettings,
  idfOf,
  termCounts,
  tfidfRow,
} from "../../../pipeline/domain/relevance-features.ts";

const settings: FeatureSettings = { ngrams: 2, title_terms: true, min_df: 1 };

describe("termCounts", () => {
  it("counts words and pairs of title and abstract, title terms apart, and categories", () => {
    const counts = termCounts(
      { title: "Agent Memory", summary: "The agent's memory, in 2026.", categories: ["cs.AI", "cs.LG"] },
      settings,
    );
    expect(Object.fromEntries(counts)).toEqual({
      agent: 1,
      memory: 2,
      "agent memory": 1,
      "agent's": 1,
      "agent's memory": 1,
      "title:agent": 1,
      "title:memory": 1,
      "title:agent memory": 1,
      "cat:cs.ai": 1,
      "primary:cs.ai": 1,
      "cat:cs.lg": 1,
    });
  });

  it("folds accents and case, and leaves out stop words and bare numbers", () => {
    const counts = termCounts(
      { title: "Évaluation OF Agents", summary: "1234 the", categories: [] },
      {
        ...settings,
        ngrams: 1,
        title_terms: false,
      },
    );
    expect([...counts.keys()]).toEqual(["evaluation", "agents"]);
  });
});

describe("tf-idf", () => {
  it("smooths idf as scikit-learn does", () => {
    expect(idfOf(3, 3)).toBeCloseTo(1, 12);
    expect(idfOf(3, 1)).toBeCloseTo(Math.log(2) + 1, 12);
  });

  it("keeps terms in enough papers, in code-unit order whatever the papers' order", () => {
    const documents = [
      new Map([
        ["b", 1],
        ["a", 2],
      ]),
      new Map([
        ["a", 1],
        ["c", 1],
      ]),
    ];
    const vocabulary = buildVocabulary(documents, 1);
    expect([...vocabulary.column.keys()]).toEqual(["a", "b", "c"]);
    expect([...buildVocabulary([...documents].reverse(), 1).column.keys()]).toEqual(["a", "b", "c"]);
    expect([...buildVocabulary(documents, 2).column.keys()]).toEqual(["a"]);
  });

  it("weighs sublinear term frequency by idf, scaled to unit length, unknown terms left out", () => {
    const vocabulary = buildVocabulary(
      [
        new Map([
          ["a", 1],
          ["b", 1],
        ]),
        new Map([["a", 1]]),
      ],
      1,
    );
    const row = tfidfRow(
      new Map([
        ["a", Math.E],
        ["b", 1],
        ["zzz", 4],
      ]),
      vocabulary,
    );
    expect(row.indices).toEqual([0, 1]);
    const a = 2 * idfOf(2, 2);
    const b = idfOf(2, 1);
    const norm = Math.hypot(a, b);
    expect(row.values[0]).toBeCloseTo(a / norm, 12);
    expect(row.values[1]).toBeCloseTo(b / norm, 12);
  });
});
