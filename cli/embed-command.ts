import type { Command } from "commander";
import { writeFileAtomic } from "../pipeline/atomic-write.ts";
import { DEFAULT_EMBEDDING_SETTINGS } from "../pipeline/domain/word-embeddings.ts";
import { EvalInputError } from "../pipeline/labels-file.ts";
import { learnWordVectors } from "../pipeline/word-vectors-corpus.ts";
import { parseIntOption } from "./options.ts";
import { createOutput, UsageError } from "./output.ts";

interface EmbedFlags {
  corpus: string;
  out: string;
  leaveOut: string[];
  name?: string;
  commit: string;
  words: number;
  dims: number;
  window: number;
  seed: number;
  json: boolean;
}

export function registerEmbed(program: Command): void {
  program
    .command("embed")
    .description(
      "learn word vectors offline from a directory of daily listings (YYYY-MM-DD.jsonl), for `picks train --embeddings`; it reads local files only",
    )
    .requiredOption("--corpus <dir>", "a directory of listings, one JSON paper per line, one file per day")
    .requiredOption("--out <file>", "where to write the word vectors")
    .option(
      "--leave-out <listing...>",
      "listings to keep out of the corpus (the labelled days): their papers, and their days' files",
      [],
    )
    .option("--name <text>", "the corpus's name for the card (default: the directory)")
    .option("--commit <sha>", "the corpus's revision for the card", "")
    .option(
      "--words <n>",
      "the most frequent words that get a vector",
      parseIntOption("--words", 100, 50_000),
      DEFAULT_EMBEDDING_SETTINGS.words,
    )
    .option(
      "--dims <n>",
      "dimensions of a vector",
      parseIntOption("--dims", 2, 512),
      DEFAULT_EMBEDDING_SETTINGS.dims,
    )
    .option(
      "--window <n>",
      "words this far apart or nearer co-occur",
      parseIntOption("--window", 1, 20),
      DEFAULT_EMBEDDING_SETTINGS.window,
    )
    .option(
      "--seed <n>",
      "seed of the random projection (the same corpus and seed give the same vectors)",
      parseIntOption("--seed", 0, 2 ** 31 - 1),
      DEFAULT_EMBEDDING_SETTINGS.seed,
    )
    .option("--json", "print the card as JSON", false)
    .action(async (flags: EmbedFlags) => {
      const out = createOutput({ json: flags.json });
      const started = performance.now();
      out.progress(`reading ${flags.corpus}`);
      let learned: Awaited<ReturnType<typeof learnWordVectors>>;
      try {
        learned = await learnWordVectors({
          dir: flags.corpus,
          leaveOut: flags.leaveOut,
          name: flags.name ?? flags.corpus,
          commit: flags.commit,
          settings: { words: flags.words, dims: flags.dims, window: flags.window, seed: flags.seed },
        });
      } catch (error) {
        if (error instanceof EvalInputError) throw new UsageError(error.message);
        throw error;
      }
      const { file, skipped_lines: skipped } = learned;
      const content = `${JSON.stringify(file)}\n`;
      await writeFileAtomic(flags.out, content);
      const seconds = (performance.now() - started) / 1000;
      const bytes = Buffer.byteLength(content);
      const { corpus, settings } = file;
      out.line(
        `${file.words.length} words x ${settings.dims} dimensions from ${corpus.papers} papers in ${corpus.files} listings of ${corpus.name}`,
      );
      out.line(
        `left out ${corpus.left_out_days.length} days (${corpus.left_out_days.join(", ") || "none"}) and ${corpus.left_out_papers} of their papers found elsewhere`,
      );
      if (skipped > 0) out.line(`skipped ${skipped} lines that were not a paper with an id and a title`);
      out.line(`wrote ${flags.out} (${bytes} bytes) in ${seconds.toFixed(1)} s`);
      out.json({
        path: flags.out,
        bytes,
        seconds,
        corpus,
        settings,
        words: file.words.length,
        skipped_lines: skipped,
      });
    });
}
