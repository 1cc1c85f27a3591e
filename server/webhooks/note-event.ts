import type { BenchNote } from "../../pipeline/domain/bench-note.ts";
import { benchNoteEventId, benchNoteReadyData } from "../../pipeline/domain/webhook.ts";
import { FIRM_KEYS_PREFIX } from "../access/key-service.ts";
import type { Store } from "../store/types.ts";
import { publishEvent } from "./publish-event.ts";

/**
 * Queues `bench.note.ready` for a firm's weekly note: only endpoints of that firm's keys receive it.
 * The id follows from the firm and the week, so building the same note again sends nothing new.
 */
export async function announceNote(
  store: Store,
  note: BenchNote,
  now: number,
  siteUrl: string,
): Promise<boolean> {
  const entries = await store.getKeys(`${FIRM_KEYS_PREFIX}:${note.firm}`);
  const owners = entries.map((entry) => entry.slice(entry.lastIndexOf(":") + 1));
  return publishEvent(
    store,
    {
      id: benchNoteEventId(note.firm, note.week),
      type: "bench.note.ready",
      data: benchNoteReadyData(note, siteUrl),
      audience: owners,
    },
    now,
  );
}
