import { fileURLToPath } from "node:url";

/** The recorded upstream data beside the checkout (`../shared/fixtures`); never copied into the project. */
export const fixture = (path: string): string =>
  fileURLToPath(new URL(`../../../shared/fixtures/${path}`, import.meta.url));

export const LISTING_250 = fixture("candidates/listing-2026-06-12-314-rows-250-unique.jsonl");
export const LISTING_PARTIAL = fixture("candidates/listing-2026-06-25-partial-day-26-rows.jsonl");
