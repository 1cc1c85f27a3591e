import type { BenchNote } from "../../pipeline/domain/bench-note.ts";
import { benchNoteEventId, benchNoteReadyData } from "../../pipeline/domain/webhook.ts";
import type { KeyService } from "../access/key-service.ts";
import type { Store } from "../store/types.ts";
import { publishEvent } from "./publish-event.ts";

/**
 * Queues `bench.note.ready` for a firm's weekly note: only endpoints of that firm's keys that are not
 * revoked receive it. The id follows from the firm and the week, so building the same note again
 * sends nothing new.
 */
export async function announceNote(
  deps: { store: Store; keys: Pick<KeyService, "firmKeyIds"> },
  note: BenchNote,
  now: number,
  siteUrl: string,
): Promise<boolean> {
  const owners = await deps.keys.firmKeyIds(note.firm);
  return publishEvent(
    deps.store,
    {
      id: benchNoteEventId(note.firm, note.week),
      type: "bench.note.ready",
      data: benchNoteReadyData(note, siteUrl),
      audience: owners,
    },
    now,
  );
}
