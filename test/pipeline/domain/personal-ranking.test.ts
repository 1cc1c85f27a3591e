import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitLinearSvm, svmDecision } from "../../../pipeline/domain/linear-svm.ts";
import {
  indexDay,
  MUST_READ_DEPTH,
  matchedTexts,
  type RankedCandidate,
  rankForReader,
} from "../../../pipeline/domain/personal-ranking.ts";
import {
  compileReaderModel,
  fitReaderModel,
  isCurrentModel,
  READER_MODEL_SETTINGS,
  ReaderModelSchema,
  readerBackground,
  readerLogit,
  rowOf,
} from "../../../pipeline/domain/reader-model.ts";
import { buildVocabulary, termCounts } from "../../../pipeline/domain/relevance-features.ts";

const features = { ngrams: 1, title_terms: false, min_df: 1 };
const paper = (i: number, title: string, extra: Partial<RankedCandidate> = {}): RankedCandidate => ({
  arxiv_id: `2401.${String(10000 + i)}`,
  title: `${title} ${i}`,
  summary: `${title} study`,
  authors: [`Author ${i}`],
  categories: ["cs.AI"],
  rank_score: 1 - i / 100,
  must_read: null,
  on_topic: 1 - i / 100,
  ...extra,
});
const day = [
  ...Array.from({ length: 10 }, (_, i) => paper(i, "agent governance audit oversight")),
  ...Array.from({ length: 10 }, (_, i) => paper(10 + i, "agent memory runtime serving")),
];
const vocabulary = buildVocabulary(
  day.map((candidate) => termCounts(candidate, features)),
  1,
);
const rows = day.map((candidate) => rowOf(candidate, features, vocabulary));
const noFollows = { authors: [], phrases: [] };

function modelLiking(indices: number[]) {
  const fitted = fitReaderModel({
    profileVersion: 1,
    relevanceVersion: "relevance-2026.11.2",
    features: vocabulary.idf.length,
    library: indices.map((i) => ({ key: `k${i}`, arxiv_id: null, title: `t${i}`, row: rows[i] as never })),
    liked: [],
    disliked: [],
    background: readerBackground(
      day.map((candidate, i) => ({ arxiv_id: candidate.arxiv_id, row: rows[i] as never })),
      vocabulary.idf.length,
    ),
  });
  if (!fitted) throw new Error("no model");
  return compileReaderModel(fitted, vocabulary.idf.length);
}

describe("the personal ranking", () => {
  it("answers an empty profile with the candidates' own order, whatever their scores", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }), (scores) => {
        const candidates = scores.map((score, i) =>
          paper(i, "x", { rank_score: score, on_topic: 1 - score }),
        );
        const items = rankForReader({ candidates, model: null, follows: noFollows });
        expect(items.map((item) => item.index)).toEqual(candidates.map((_, i) => i));
        expect(items.every((item) => item.why_for_you.placed_by === "global")).toBe(true);
      }),
    );
  });

  it("puts a reader's kind of paper first, and names the liked papers it is nearest to", () => {
    const model = modelLiking([10, 11, 12]);
    const items = rankForReader({ candidates: day, rows, model, follows: noFollows, explain: 5, weight: 3 });
    const top = items.slice(0, 5).map((item) => item.index);
    expect(top.every((index) => index >= 10)).toBe(true);
    expect(items[0]?.why_for_you.nearest[0]?.key).toMatch(/^k1[0-2]$/);
    expect(items[6]?.why_for_you.nearest).toEqual([]);
  });

  it("pins followed authors first, then followed phrases, with their reasons", () => {
    const items = rankForReader({
      candidates: day,
      model: null,
      follows: { authors: ["author 15"], phrases: ["MEMORY runtime"] },
    });
    expect(items[0]).toMatchObject({
      index: 15,
      why_for_you: { followed_author: "author 15", placed_by: "followed_author" },
    });
    expect(items.slice(1, 10).map((item) => item.index)).toEqual([10, 11, 12, 13, 14, 16, 17, 18, 19]);
    expect(items[1]?.why_for_you).toMatchObject({
      followed_phrase: "MEMORY runtime",
      placed_by: "followed_phrase",
    });
  });

  it("gives the same list from the day's kept matched texts as from the candidates' own", () => {
    const candidates = day.map((candidate, i) =>
      i === 7 ? { ...candidate, authors: ["Zoë  Müller"], summary: "An Agent Mémory study" } : candidate,
    );
    const texts = matchedTexts(candidates);
    for (const follows of [
      { authors: ["zoe muller"], phrases: [] },
      { authors: [], phrases: ["agent memory", "AUDIT"] },
      { authors: ["Author 3", "nobody"], phrases: ["runtime serving"] },
    ]) {
      const model = modelLiking([1, 2]);
      const plain = rankForReader({ candidates, rows, model, follows });
      expect(rankForReader({ candidates, rows, model, follows, texts })).toEqual(plain);
      expect(plain[0]?.why_for_you.placed_by).toMatch(/^followed_/);
    }
  });

  it("never leaves a sure must-read below the floor's depth", () => {
    const candidates = day.map((candidate, i) => (i === 3 ? { ...candidate, must_read: 0.9 } : candidate));
    const model = modelLiking([10, 11, 12]);
    const items = rankForReader({ candidates, rows, model, follows: noFollows, weight: 3 });
    const at = items.findIndex((item) => item.index === 3);
    expect(at).toBeLessThan(MUST_READ_DEPTH);
    expect(items[at]?.why_for_you.placed_by).toBe("must_read");
    expect(new Set(items.map((item) => item.index)).size).toBe(day.length);
  });
});

describe("the reader's model", () => {
  const background = readerBackground(
    day.map((candidate, i) => ({ arxiv_id: candidate.arxiv_id, row: rows[i] as never })),
    vocabulary.idf.length,
  );
  const fitOn = (library: number[], liked: number[] = [], disliked: number[] = [], dislikeShare = 0) => {
    const papers = (indices: number[]) =>
      indices.map((i) => ({
        key: `k${i}`,
        arxiv_id: day[i]?.arxiv_id ?? null,
        title: `t${i}`,
        row: rows[i] as never,
      }));
    return fitReaderModel(
      {
        profileVersion: 3,
        relevanceVersion: "relevance-2026.11.2",
        features: vocabulary.idf.length,
        library: papers(library),
        liked: papers(liked),
        disliked: papers(disliked),
        background,
      },
      { ...READER_MODEL_SETTINGS, dislikeShare },
    );
  };

  it("is stored in its schema, the same for the same profile, and null with nothing liked", () => {
    const model = fitOn([10, 11, 12], [13], [2]);
    expect(ReaderModelSchema.parse(model)).toEqual(model);
    expect(isCurrentModel(model, "relevance-2026.11.2")).toBe(true);
    expect(isCurrentModel(model, "relevance-2026.12.1")).toBe(false);
    expect(isCurrentModel({ ...model, format: 1 }, "relevance-2026.11.2")).toBe(false);
    expect(fitOn([10, 11, 12], [13], [2])).toEqual(model);
    expect(model?.positives).toBe(4);
    // The reader's own five papers left the twenty of the background.
    expect(model?.negatives).toBe(15 + 1);
    expect(fitOn([], [], [2])).toBeNull();
  });

  it("scores a day the same through the day's postings as paper by paper", () => {
    const model = compileReaderModel(fitOn([10, 11, 12]) as never, vocabulary.idf.length);
    const byRows = rankForReader({ candidates: day, rows, model, follows: noFollows });
    const byIndex = rankForReader({ candidates: day, day: indexDay(day, rows), model, follows: noFollows });
    expect(byIndex).toEqual(byRows);
    const logits = rows.map((row) => readerLogit(model, row));
    const order = logits.map((_, i) => i).sort((a, b) => (logits[b] as number) - (logits[a] as number));
    expect(order.slice(0, 3).every((i) => i >= 10)).toBe(true);
  });

  it("moves a disliked kind of paper down, when disliked papers have a share of the negatives", () => {
    const compiled = (model: unknown) => compileReaderModel(model as never, vocabulary.idf.length);
    const mixed = compiled(fitOn([1, 2, 11, 12]));
    const disliking = compiled(fitOn([1, 2, 11, 12], [], [3, 4, 5], 0.5));
    const shipped = compiled(fitOn([1, 2, 11, 12], [], [3, 4, 5]));
    const governance = rows.slice(0, 10);
    const mean = (model: typeof mixed) =>
      governance.reduce((sum, row) => sum + readerLogit(model, row), 0) / governance.length -
      rows.slice(10).reduce((sum, row) => sum + readerLogit(model, row), 0) / 10;
    expect(mean(disliking)).toBeLessThan(mean(mixed));
    // With the shipped share (none), a dislike only takes its paper out of the background.
    expect(Math.abs(mean(shipped) - mean(mixed))).toBeLessThan(Math.abs(mean(disliking) - mean(mixed)));
  });
});

describe("the linear SVM of the baseline", () => {
  it("separates two groups and is deterministic", () => {
    const labels = day.map((_, i) => (i < 10 ? 1 : 0) as 0 | 1);
    const svm = fitLinearSvm(rows, labels, vocabulary.idf.length, { c: 0.1, balanced: true });
    expect(rows.every((row, i) => svmDecision(svm, row) > 0 === i < 10)).toBe(true);
    const again = fitLinearSvm(rows, labels, vocabulary.idf.length, { c: 0.1, balanced: true });
    expect(Array.from(again.weights)).toEqual(Array.from(svm.weights));
    expect(() =>
      fitLinearSvm(
        rows,
        labels.map(() => 0),
        3,
        { c: 1, balanced: true },
      ),
    ).toThrow(/both classes/);
  });
});
