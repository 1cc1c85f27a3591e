import type { SubmissionRecord } from "../../pipeline/domain/submission.ts";
import { scoredEventId, submissionScoredData } from "../../pipeline/domain/webhook.ts";
import type { Store } from "../store/types.ts";
import { createBoardCache } from "../submissions/leaderboard-cache.ts";
import type { NewEvent } from "./publish-event.ts";

/** The `submission.scored` event of a scored record, with its place on the leaderboard now. */
export async function scoredEvent(store: Store, record: SubmissionRecord): Promise<NewEvent> {
  const rows = await createBoardCache(store).rows();
  const index = rows.findIndex((row) => row.submission_id === record.id);
  return {
    id: scoredEventId(record.id),
    type: "submission.scored",
    data: submissionScoredData(record, index < 0 ? null : index + 1),
  };
}
