import type { KeyRecord } from "../access/key-service.ts";

// What the key check leaves in a request's context (h3's event.context, the same object as the
// request's `context`) for the request log, which runs after the answer: the key's record, never the key.

type Notes = Record<string, unknown> | undefined;

export function noteKey(notes: Notes, record: KeyRecord): void {
  if (notes) notes.key = record;
}

export const notedKey = (notes: Notes): KeyRecord | undefined => notes?.key as KeyRecord | undefined;
