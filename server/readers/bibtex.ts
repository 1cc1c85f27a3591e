// BibTeX at the edge: @retorquere/bibtex-parser (the parser behind Zotero's Better BibTeX) turns a file
// into entries with LaTeX made text; the domain reads each entry's fields into a library item.
// The parser (with its tokenizer and LaTeX tables) is imported on the first BibTeX body, not at start:
// it costs a server's start about a tenth of a second and most servers never read one.

import type { Creator } from "@retorquere/bibtex-parser";
import type { BibFields } from "../../pipeline/domain/library-items.ts";

export type BibReading =
  | { ok: true; entries: BibFields[] }
  | { ok: false; errors: Array<{ entry: string; line: number | null; reason: string }> };

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function nameOf(creator: Creator): string {
  if (creator.name) return creator.name;
  return [creator.firstName, creator.prefix, creator.lastName, creator.suffix].filter(Boolean).join(" ");
}

/**
 * Every entry of a BibTeX file, or every error found in it, each naming its entry and line: a file
 * with an error is refused whole, so nothing of it is half-imported.
 */
export async function readBibtex(input: string): Promise<BibReading> {
  const { parse } = await import("@retorquere/bibtex-parser");
  let library: ReturnType<typeof parse>;
  try {
    // Titles as written (no sentence-casing) and unknown commands dropped rather than thrown on.
    library = parse(input, { sentenceCase: false, english: false, unsupported: "ignore" });
  } catch (error) {
    return { ok: false, errors: [{ entry: "the file", line: null, reason: (error as Error).message }] };
  }
  if (library.errors.length > 0) {
    return {
      ok: false,
      errors: library.errors.map((error) => ({
        entry: /^\s*@\s*\w+\s*[{(]\s*([^,\s]*)/.exec(error.input ?? "")?.[1] || "an entry",
        line: Number(/at line (\d+)/.exec(error.error)?.[1]) || lineOf(input, error.input),
        reason: error.error,
      })),
    };
  }
  return {
    ok: true,
    entries: library.entries.map((entry) => {
      const { fields } = entry;
      const found: BibFields = { key: entry.key, authors: (fields.author ?? []).map(nameOf) };
      for (const name of ["title", "abstract", "eprint", "archiveprefix", "url", "doi"] as const) {
        const value = text(fields[name]);
        if (value !== undefined) found[name] = value;
      }
      return found;
    }),
  };
}

/** The line where `fragment` starts in `input`, when it is found there. */
function lineOf(input: string, fragment: string | undefined): number | null {
  if (!fragment) return null;
  const at = input.indexOf(fragment);
  return at === -1 ? null : input.slice(0, at).split("\n").length;
}
