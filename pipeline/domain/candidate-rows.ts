import { normalizeArxivRef } from "./arxiv-id.ts";
import type { Candidate, CandidateBatch, SkippedRow } from "./candidate.ts";

/** A raw row from any listing, with where it came from (file:line) for error messages. */
export interface RawRow {
  value: unknown;
  where: string;
}

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim();

function stringList(value: unknown, separator: RegExp): string[] {
  if (Array.isArray(value)) {
    return value
      .filter((item): item is string => typeof item === "string")
      .map(collapse)
      .filter(Boolean);
  }
  if (typeof value === "string") return value.split(separator).map(collapse).filter(Boolean);
  return [];
}

/**
 * Turns one listing row into a candidate, or says why it cannot be one.
 * Accepts the common listing shapes: `summary` or `abstract`, authors as a list or a comma-separated string.
 */
export function rowToCandidate(row: RawRow): Candidate | SkippedRow {
  const value = row.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { where: row.where, reason: "row is not an object" };
  }
  const record = value as Record<string, unknown>;
  const rawId = typeof record.id === "string" ? record.id : undefined;
  const id = rawId === undefined ? undefined : normalizeArxivRef(rawId);
  if (id === undefined) {
    return { where: row.where, ...(rawId ? { id: rawId.slice(0, 80) } : {}), reason: "malformed arXiv id" };
  }
  const title = typeof record.title === "string" ? collapse(record.title) : "";
  if (title === "") return { where: row.where, id, reason: "missing title" };
  const summary = record.summary ?? record.abstract;
  const candidate: Candidate = {
    id,
    title,
    summary: typeof summary === "string" ? collapse(summary) : "",
    authors: stringList(record.authors, /,|\band\b/),
    categories: stringList(record.categories, /[\s,]+/),
  };
  if (typeof record.comment === "string" && record.comment.trim() !== "") {
    candidate.comment = collapse(record.comment);
  }
  return candidate;
}

const isSkipped = (result: Candidate | SkippedRow): result is SkippedRow => "reason" in result;

/** Builds a day's batch from raw rows: repeated ids (cross-lists, versions) count once, first row wins. */
export function collectCandidates(
  rows: Iterable<RawRow>,
  meta: { source: string; sample: boolean },
): CandidateBatch {
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  const skipped: SkippedRow[] = [];
  let duplicates = 0;
  for (const row of rows) {
    const result = rowToCandidate(row);
    if (isSkipped(result)) skipped.push(result);
    else if (seen.has(result.id)) duplicates += 1;
    else {
      seen.add(result.id);
      candidates.push(result);
    }
  }
  return { ...meta, candidates, skipped, duplicates };
}
