import { describe, expect, it } from "vitest";
import {
  advance,
  type BoardRow,
  BoardRowSchema,
  boardRowOf,
  compareBoardRows,
  newSubmission,
  rankBoard,
  rankOnBoard,
  SubmissionRecordSchema,
  SubmissionViewSchema,
  submissionView,
} from "../../../pipeline/domain/submission.ts";
import { fixedScores, SUBMISSION } from "./helpers.ts";

const row = (id: number, total: number, reg_fit: number, scored_at: string): BoardRow => ({
  submission_id: id,
  runtime_name: `R${id}`,
  vendor: "V",
  url: "https://example.org/",
  total,
  groups: { substrate: total, governance: 0, research: 0 },
  axes: { A1: 0, A2: 0, A3: 0, A4: 0, A5: 0, A6: 0, A7: 0, A8: 0, A9: 0 },
  reg_fit,
  scorer: "rules",
  rubric_version: "test",
  scored_at,
});

describe("the leaderboard order", () => {
  it("ranks by total, then REG FIT, then the earlier scoring, then the lower id", () => {
    const rows = [
      row(1, 20, 2, "2026-11-20T10:00:00.000Z"),
      row(2, 25, 1, "2026-11-20T12:00:00.000Z"),
      row(3, 20, 3, "2026-11-20T11:00:00.000Z"),
      row(4, 20, 2, "2026-11-20T09:00:00.000Z"),
      row(6, 20, 2, "2026-11-20T10:00:00.000Z"),
      row(5, 20, 2, "2026-11-20T10:00:00.000Z"),
    ];
    const expected = [2, 3, 4, 1, 5, 6];
    expect([...rows].sort(compareBoardRows).map((r) => r.submission_id)).toEqual(expected);
    // The same whatever order the store listed them in.
    expect(
      [...rows]
        .reverse()
        .sort(compareBoardRows)
        .map((r) => r.submission_id),
    ).toEqual(expected);
    const ranked = rankBoard([...rows].sort(compareBoardRows), 3);
    expect(ranked.map((entry) => [entry.rank, entry.submission_id])).toEqual([
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
  });
});

describe("the place a new score takes", () => {
  const board = [row(1, 30, 2, "2026-11-20T10:00:00.000Z"), row(2, 20, 2, "2026-11-20T10:00:00.000Z")];
  it.each([
    [row(3, 40, 1, "2026-11-21T00:00:00.000Z"), 1],
    [row(3, 25, 3, "2026-11-21T00:00:00.000Z"), 2],
    [row(3, 20, 2, "2026-11-21T00:00:00.000Z"), 3],
    // Its own row on the board already (a settle repeated) is not counted twice.
    [row(2, 20, 2, "2026-11-20T10:00:00.000Z"), 2],
  ])("case %#: number %i", (scored, expected) => {
    expect(rankOnBoard(board, scored)).toBe(expected);
  });
});

describe("a submission record", () => {
  it("keeps every step with its time, and hides the contact email from the view", () => {
    const queued = newSubmission(
      7,
      { ...SUBMISSION, url: "https://harbor.example/" },
      "2026-11-20T10:00:00.000Z",
    );
    const fetching = advance(queued, "fetching", "2026-11-20T10:00:01.000Z", { attempts: 1 });
    const scored = advance(fetching, "scored", "2026-11-20T10:00:02.000Z", {
      scores: fixedScores([5, 5, 5, 4, 4, 4, 3, 3, 3], 3),
      scored_at: "2026-11-20T10:00:02.000Z",
      basis: "description_and_page",
    });
    expect(SubmissionRecordSchema.parse(scored)).toEqual(scored);
    expect(scored.history).toEqual([
      { status: "queued", at: "2026-11-20T10:00:00.000Z" },
      { status: "fetching", at: "2026-11-20T10:00:01.000Z" },
      { status: "scored", at: "2026-11-20T10:00:02.000Z" },
    ]);
    expect(queued.history).toHaveLength(1);
    const view = submissionView(scored);
    expect(SubmissionViewSchema.strict().parse(view)).toEqual(view);
    expect(Object.keys(view)[0]).toBe("submission_id");
    expect(JSON.stringify(view)).not.toContain(SUBMISSION.contact_email);
    const boardRow = boardRowOf(scored);
    expect(BoardRowSchema.parse(boardRow)).toMatchObject({ submission_id: 7, total: 36, reg_fit: 3 });
    expect(boardRowOf(fetching)).toBeNull();
  });
});
