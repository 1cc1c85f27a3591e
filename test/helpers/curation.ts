import { fileURLToPath } from "node:url";
import { LISTING_250 } from "./fixtures.ts";

/** The expert-labelled days beside the checkout (`../shared/curation`); never copied into the project. */
export const curation = (path: string): string =>
  fileURLToPath(new URL(`../../../shared/curation/${path}`, import.meta.url));

/** The released labelled days; the 2026-06-12 listing lives with the recorded fixtures. */
export const RELEASED_DAYS = [
  {
    date: "2025-11-19",
    labels: curation("labels-2025-11-19.json"),
    listing: curation("listing-2025-11-19.jsonl"),
  },
  {
    date: "2026-03-11",
    labels: curation("labels-2026-03-11.json"),
    listing: curation("listing-2026-03-11.jsonl"),
  },
  { date: "2026-06-12", labels: curation("labels-2026-06-12.json"), listing: LISTING_250 },
] as const;

/**
 * The four days released last: labelled blind and kept back until then, so the rubric's rules (2026.11.3)
 * were never tuned with them in view; the other eight were.
 */
export const UNTUNED_DAYS = ["2025-12-10", "2026-01-14", "2026-02-11", "2026-03-25"] as const;

/** Every labelled day released so far: the three above and nine more with their listings beside them. */
export const LABELLED_DAYS = [
  ...RELEASED_DAYS,
  ...(["2026-04-22", "2026-05-20", "2026-06-03", "2026-06-24", "2026-07-01", ...UNTUNED_DAYS] as const).map(
    (date) => ({
      date,
      labels: curation(`labels-${date}.json`),
      listing: curation(`listing-${date}.jsonl`),
    }),
  ),
].sort((a, b) => (a.date < b.date ? -1 : 1));
