// Learns word vectors from a directory of daily listings (one JSON object per paper and line, files
// named YYYY-MM-DD.jsonl) for `picks embed`. It reads local files only; the corpus is fetched, if ever,
// by the operator, never by the service. Papers of the left-out listings (the labelled days) are never
// read, so figures measured on those days do not rest on their own text.

import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { rankedWords } from "./domain/relevance-features.ts";
import { CooccurrenceCounter, type EmbeddingSettings, frequentWords } from "./domain/word-embeddings.ts";
import {
  type CorpusCard,
  quantise,
  type WordVectorsFile,
  WordVectorsFileSchema,
} from "./domain/word-vectors-file.ts";
import { EvalInputError } from "./labels-file.ts";

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;
const DAY = /\d{4}-\d{2}-\d{2}/;
/** A word needs this many corpus papers to get a vector: rarer ones have too few neighbours to place. */
const MIN_PAPERS = 5;

export interface CorpusOptions {
  dir: string;
  /** Listings whose papers, and whose days (the date in the file name), are left out. */
  leaveOut: readonly string[];
  name: string;
  commit: string;
  settings: EmbeddingSettings;
}

export interface LearnedVectors {
  file: WordVectorsFile;
  /** Lines that were not a paper with a title (not JSON, no id or no title): counted, then skipped. */
  skipped_lines: number;
}

async function idsOf(listing: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(listing, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      `listing ${listing}: cannot read it (${code === "ENOENT" ? "no such file" : code})`,
    );
  }
  const ids: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === "string") ids.push(id);
    } catch {
      throw new EvalInputError(`listing ${listing}: a line is not JSON, so its papers cannot be left out`);
    }
  }
  return ids;
}

/** Reads the corpus twice (word counts, then co-occurrences) and learns the vectors. */
export async function learnWordVectors(options: CorpusOptions): Promise<LearnedVectors> {
  const names = await readdir(options.dir).catch((error: NodeJS.ErrnoException) => {
    throw new EvalInputError(
      `corpus ${options.dir}: cannot read it (${error.code === "ENOENT" ? "no such directory" : error.code})`,
    );
  });
  const leftOutIds = new Set<string>();
  const leftOutDays = new Set<string>();
  for (const listing of options.leaveOut) {
    for (const id of await idsOf(listing)) leftOutIds.add(id);
    const day = DAY.exec(basename(listing))?.[0];
    if (day) leftOutDays.add(day);
  }
  const files = names.filter((name) => DAY_FILE.test(name) && !leftOutDays.has(name.slice(0, 10))).sort();
  if (files.length === 0) {
    throw new EvalInputError(
      `corpus ${options.dir}: no listing named YYYY-MM-DD.jsonl outside the left-out days`,
    );
  }
  let skipped = 0;
  let leftOutPapers = 0;
  const eachPaper = async (visit: (words: string[]) => void) => {
    const seen = new Set<string>();
    skipped = 0;
    leftOutPapers = 0;
    for (const name of files) {
      const text = await readFile(join(options.dir, name), "utf8");
      for (const line of text.split("\n")) {
        if (line.trim() === "") continue;
        let paper: { id?: unknown; title?: unknown; summary?: unknown };
        try {
          paper = JSON.parse(line);
        } catch {
          skipped++;
          continue;
        }
        if (typeof paper?.id !== "string" || typeof paper.title !== "string") {
          skipped++;
          continue;
        }
        // A paper announced again (a cross-list, a new version) counts once.
        if (seen.has(paper.id)) continue;
        seen.add(paper.id);
        if (leftOutIds.has(paper.id)) {
          leftOutPapers++;
          continue;
        }
        const summary = typeof paper.summary === "string" ? paper.summary : "";
        visit([...rankedWords(paper.title), ...rankedWords(summary)]);
      }
    }
  };
  const papers = new Map<string, number>();
  let count = 0;
  await eachPaper((words) => {
    count++;
    for (const word of new Set(words)) papers.set(word, (papers.get(word) ?? 0) + 1);
  });
  const vocabulary = frequentWords(papers, options.settings.words, MIN_PAPERS);
  if (vocabulary.length <= options.settings.dims) {
    throw new EvalInputError(
      `corpus ${options.dir}: ${vocabulary.length} words get a vector (at most ${options.settings.words}, each in ${MIN_PAPERS} or more of its ${count} papers), too few for ${options.settings.dims} dimensions`,
    );
  }
  const counter = new CooccurrenceCounter(vocabulary, options.settings);
  await eachPaper((words) => counter.add(words));
  const card: CorpusCard = {
    name: options.name,
    commit: options.commit,
    files: files.length,
    papers: count,
    left_out_days: [...leftOutDays].sort(),
    left_out_papers: leftOutPapers,
  };
  const file = quantise(counter.learn(), card, options.settings.seed, options.settings.window);
  return { file: WordVectorsFileSchema.parse(file), skipped_lines: skipped };
}

/** A word-vectors file as `picks embed` wrote it (or a model file's), checked; any problem names the file. */
export async function readWordVectorsFile(path: string): Promise<WordVectorsFile> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : (code ?? `not valid JSON (${(error as Error).message})`);
    throw new EvalInputError(`word vectors ${path}: cannot read it (${why})`);
  }
  // A model file that carries word vectors lends them: the same vectors, to train its procedure again.
  if (typeof json === "object" && json !== null && "format" in json && "embedding" in json) {
    json = json.embedding;
  }
  const parsed = WordVectorsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "the document";
    throw new EvalInputError(`word vectors ${path}: not a word-vectors file: ${where}: ${issue?.message}`);
  }
  return parsed.data;
}
