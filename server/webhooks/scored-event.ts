import { boardRowOf, rankOnBoard, type SubmissionRecord } from "../../pipeline/domain/submission.ts";
import { scoredEventId, submissionScoredData } from "../../pipeline/domain/webhook.ts";
import type { Store, WritesWith } from "../store/types.ts";
import { createBoardCache } from "../submissions/leaderboard-cache.ts";
import { eventWrites } from "./publish-event.ts";

/**
 * The writes of the `submission.scored` event of a record about to be recorded as scored, with the
 * place it takes on the leaderboard then: committed with the score, so either both exist or neither.
 */
export async function scoredEventWrites(
  store: Store,
  record: SubmissionRecord,
  now: number,
): Promise<WritesWith> {
  const row = boardRowOf(record);
  const rank = row === null ? null : rankOnBoard(await createBoardCache(store).rows(), row);
  const event = {
    id: scoredEventId(record.id),
    type: "submission.scored" as const,
    data: submissionScoredData(record, rank),
  };
  return eventWrites(event, now);
}
