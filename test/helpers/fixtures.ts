import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Candidate } from "../../pipeline/domain/candidate.ts";
import { collectCandidates } from "../../pipeline/domain/candidate-rows.ts";
import { parseListing } from "../../pipeline/sources/file-source.ts";

/** The recorded upstream data beside the checkout (`../shared/fixtures`); never copied into the project. */
export const fixture = (path: string): string =>
  fileURLToPath(new URL(`../../../shared/fixtures/${path}`, import.meta.url));

export const LISTING_250 = fixture("candidates/listing-2026-06-12-314-rows-250-unique.jsonl");
export const LISTING_PARTIAL = fixture("candidates/listing-2026-06-25-partial-day-26-rows.jsonl");

/** A listing file's candidates as the file source reads them (repeated ids once), synchronously. */
export function readListing(path: string): Candidate[] {
  return collectCandidates(parseListing(readFileSync(path, "utf8"), path), { source: "test", sample: false })
    .candidates;
}

/** A paper's text as the search index reads it. */
export interface RecordedPaper {
  title: string;
  authors: string[];
  summary: string;
}

/** Every distinct real paper of the recorded listings and peer outputs in ../shared/fixtures (441). */
export function recordedPapers(): RecordedPaper[] {
  const papers: RecordedPaper[] = [...readListing(LISTING_250), ...readListing(LISTING_PARTIAL)];
  for (const name of [
    "candidates/llm-filtered-2025-02-18-90-papers.json",
    "candidates/llm-filtered-2026-05-08-75-papers.json",
  ]) {
    const parsed = JSON.parse(readFileSync(fixture(name), "utf8")) as Record<string, unknown>;
    const entries = (parsed.papers ?? parsed) as Record<
      string,
      { title: string; authors: string[]; abstract: string }
    >;
    for (const entry of Object.values(entries)) {
      papers.push({ title: entry.title, authors: entry.authors, summary: entry.abstract });
    }
  }
  return papers;
}
