import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { collectCandidates, type RawRow } from "../domain/candidate-rows.ts";
import { type CandidateSource, SourceError } from "./source.ts";

/** Reads a JSON array, a `{ candidates: [...] }` document, an object keyed by arXiv id, or JSON Lines. */
export function parseListing(text: string, file: string): RawRow[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[") || (trimmed.startsWith("{") && !looksLikeJsonLines(text))) {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new SourceError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    return documentRows(document, file);
  }
  const rows: RawRow[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      rows.push({ value: JSON.parse(line), where: `${file}:${index + 1}` });
    } catch (error) {
      throw new SourceError(`${file}:${index + 1}: not valid JSON (${(error as Error).message})`);
    }
  }
  return rows;
}

function looksLikeJsonLines(text: string): boolean {
  const firstLine = text.trimStart().split("\n", 1)[0] ?? "";
  try {
    JSON.parse(firstLine);
    return text.trim().includes("\n");
  } catch {
    return false;
  }
}

function documentRows(document: unknown, file: string): RawRow[] {
  if (Array.isArray(document)) return document.map((value, index) => ({ value, where: `${file}[${index}]` }));
  if (typeof document === "object" && document !== null) {
    const record = document as Record<string, unknown>;
    if (Array.isArray(record.candidates)) {
      return record.candidates.map((value, index) => ({ value, where: `${file}:candidates[${index}]` }));
    }
    if (typeof record.id === "string") return [{ value: record, where: `${file}:1` }];
    // A peer system's format: `{ "2502.11831": { title, abstract, authors } }`.
    return Object.entries(record).map(([id, value]) => ({
      value: typeof value === "object" && value !== null ? { id, ...value } : value,
      where: `${file}:${id}`,
    }));
  }
  throw new SourceError(`${file}: expected a JSON array, an object or JSON Lines`);
}

/** Candidates from a listing file (JSON Lines or JSON). The same file is used for any `--date`. */
export function createFileSource(path: string): CandidateSource {
  return {
    name: `file:${basename(path)}`,
    async load() {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new SourceError(`cannot read ${path}: ${code === "ENOENT" ? "no such file" : code}`);
      }
      return collectCandidates(parseListing(text, path), { source: `file:${basename(path)}`, sample: false });
    },
  };
}
