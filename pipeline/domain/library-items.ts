// The forms a library arrives in, read into library items: arXiv ids, CSL-JSON (what Zotero and
// Mendeley export) and BibTeX entries (parsed at the edge by a BibTeX parser, handed here as fields).
// A library leaves in CSL-JSON, which reads back into the same items: export and import round-trip.

import { normalizeArxivRef } from "./arxiv-id.ts";
import {
  ABSTRACT_MAX_LENGTH,
  AUTHORS_MAX,
  FOLLOW_MAX_LENGTH,
  type LibraryItem,
  TITLE_MAX_LENGTH,
} from "./reader-profile.ts";

/** An entry that could not become an item: which one, and why. */
export interface Unreadable {
  item: string;
  reason: string;
}

export type ItemReading = { ok: true; item: LibraryItem } | { ok: false; unreadable: Unreadable };

/** A BibTeX entry's fields as the edge's parser gives them, LaTeX already turned into text. */
export interface BibFields {
  key: string;
  title?: string;
  abstract?: string;
  authors: string[];
  eprint?: string;
  archiveprefix?: string;
  url?: string;
  doi?: string;
}

/** A CSL-JSON item as the library exports it. */
export interface CslItem {
  id: string;
  type: "article";
  title?: string;
  abstract?: string;
  author?: Array<{ literal: string }>;
  DOI?: string;
  URL?: string;
  number?: string;
}

const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i;
const DOI = /^10\.\d{4,9}\/\S+$/;

const clip = (text: string, max: number): string => {
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join("") : text;
};
const clean = (value: unknown, max: number): string | null => {
  if (typeof value !== "string") return null;
  const text = value.replace(/\s+/g, " ").trim();
  return text === "" ? null : clip(text, max);
};

/** The DOI without its resolver prefix, lower-cased as DOIs compare; null when it is not one. */
function doiOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const doi = value
    .trim()
    .replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:)/i, "")
    .toLowerCase();
  return DOI.test(doi) ? doi : null;
}

/** An arXiv id in any of the places exports put one: `arXiv:...`, an abs or pdf URL, arXiv's DOI. */
function arxivOf(...values: unknown[]): string | null {
  for (const value of values) {
    if (typeof value !== "string") continue;
    const text = value.trim();
    const fromDoi = ARXIV_DOI.exec(doiOf(text) ?? "")?.[1];
    // Zotero's note reads "arXiv:2401.12345 [cs]".
    const found = normalizeArxivRef(fromDoi ?? text.replace(/\s+\[[^\]]*\]$/, ""));
    if (found) return found;
  }
  return null;
}

function itemOf(fields: {
  arxiv_id: string | null;
  doi: string | null;
  title: string | null;
  abstract: string | null;
  authors: string[];
}): LibraryItem | null {
  const key = fields.arxiv_id
    ? `arxiv:${fields.arxiv_id}`
    : fields.doi
      ? `doi:${fields.doi}`
      : fields.title
        ? `title:${clip(fields.title.toLowerCase(), 200)}`
        : null;
  return key === null ? null : { key, ...fields, authors: fields.authors.slice(0, AUTHORS_MAX) };
}

const NOTHING_TO_GO_BY = "it names no arXiv id, DOI or title";

/**
 * One element of a JSON library: an arXiv id (or abs URL) as a string, or a CSL-JSON item.
 * @example readJsonItem("arXiv:2401.12345v2", 0) // { ok: true, item: { key: "arxiv:2401.12345", ... } }
 */
export function readJsonItem(value: unknown, index: number): ItemReading {
  const where = `[${index}]`;
  if (typeof value === "string") {
    const arxiv = arxivOf(value);
    if (arxiv)
      return {
        ok: true,
        item: itemOf({ arxiv_id: arxiv, doi: null, title: null, abstract: null, authors: [] }) as LibraryItem,
      };
    return {
      ok: false,
      unreadable: {
        item: `${where} ${clip(value, 80)}`,
        reason: "not an arXiv id (expected e.g. 2401.12345 or an arxiv.org/abs URL)",
      },
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      unreadable: { item: where, reason: "expected an arXiv id (a string) or a CSL-JSON item (an object)" },
    };
  }
  const csl = value as Record<string, unknown>;
  const doi = doiOf(csl.DOI);
  const item = itemOf({
    arxiv_id: arxivOf(csl.number, csl.URL, csl.DOI, csl.note, csl.archive_location, csl.id),
    doi: doi !== null && ARXIV_DOI.test(doi) ? null : doi,
    title: clean(csl.title, TITLE_MAX_LENGTH),
    abstract: clean(csl.abstract, ABSTRACT_MAX_LENGTH),
    authors: cslAuthors(csl.author),
  });
  const name =
    typeof csl.id === "string" || typeof csl.id === "number" ? `${where} ${String(csl.id)}` : where;
  return item ? { ok: true, item } : { ok: false, unreadable: { item: name, reason: NOTHING_TO_GO_BY } };
}

function cslAuthors(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((author) => {
    if (typeof author !== "object" || author === null) return [];
    const { literal, given, family } = author as Record<string, unknown>;
    const name =
      typeof literal === "string"
        ? literal
        : [given, family].filter((part): part is string => typeof part === "string").join(" ");
    const text = clean(name, FOLLOW_MAX_LENGTH);
    return text ? [text] : [];
  });
}

/** One BibTeX entry: `eprint` with `archivePrefix = arXiv`, an arXiv URL or DOI, or a title (and abstract). */
export function readBibEntry(fields: BibFields): ItemReading {
  const prefix = fields.archiveprefix?.trim().toLowerCase();
  const eprint = prefix === undefined || prefix === "arxiv" ? arxivOf(fields.eprint) : null;
  const doi = doiOf(fields.doi);
  const item = itemOf({
    arxiv_id: eprint ?? arxivOf(fields.url, fields.doi),
    doi: doi !== null && ARXIV_DOI.test(doi) ? null : doi,
    title: clean(fields.title, TITLE_MAX_LENGTH),
    abstract: clean(fields.abstract, ABSTRACT_MAX_LENGTH),
    authors: fields.authors.flatMap((name) => clean(name, FOLLOW_MAX_LENGTH) ?? []),
  });
  return item
    ? { ok: true, item }
    : { ok: false, unreadable: { item: `@${fields.key}`, reason: NOTHING_TO_GO_BY } };
}

/** The item as CSL-JSON: what the profile's export gives, and what `readJsonItem` reads back the same. */
export function toCsl(item: LibraryItem): CslItem {
  const csl: CslItem = { id: item.key, type: "article" };
  if (item.title !== null) csl.title = item.title;
  if (item.abstract !== null) csl.abstract = item.abstract;
  if (item.authors.length > 0) csl.author = item.authors.map((literal) => ({ literal }));
  if (item.doi !== null) csl.DOI = item.doi;
  if (item.arxiv_id !== null) {
    csl.URL = `https://arxiv.org/abs/${item.arxiv_id}`;
    csl.number = `arXiv:${item.arxiv_id}`;
  }
  return csl;
}

/** A paper's text as the arXiv API or a screened file gives it: what makes a pending item ready. */
export interface LibraryText {
  title: string;
  abstract: string;
  authors: readonly string[];
}

/**
 * The library with each pending item (an arXiv id without a title) whose id has a text in `texts`
 * given that text, clipped as an imported item is; its own authors are kept when it has some.
 * @example withTexts([{ key: "arxiv:1707.08567", arxiv_id: "1707.08567", title: null, ... }], texts).filled // 1
 */
export function withTexts(
  library: readonly LibraryItem[],
  texts: ReadonlyMap<string, LibraryText>,
): { library: LibraryItem[]; filled: number } {
  let filled = 0;
  const completed = library.map((item) => {
    const text = item.title === null && item.arxiv_id !== null ? texts.get(item.arxiv_id) : undefined;
    const title = text && clean(text.title, TITLE_MAX_LENGTH);
    if (!text || !title) return item;
    filled += 1;
    return {
      ...item,
      title,
      abstract: clean(text.abstract, ABSTRACT_MAX_LENGTH),
      authors:
        item.authors.length > 0
          ? item.authors
          : text.authors.flatMap((name) => clean(name, FOLLOW_MAX_LENGTH) ?? []).slice(0, AUTHORS_MAX),
    };
  });
  return { library: completed, filled };
}
