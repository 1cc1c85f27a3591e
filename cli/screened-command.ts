import type { Command } from "commander";
import { rebuildScreened } from "../pipeline/screened-rebuild.ts";
import { parseDayOption } from "./options.ts";
import { createOutput, UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR, DEFAULT_RUNS_DIR } from "./paths.ts";

interface ScreenedFlags {
  rebuild: boolean;
  from?: string;
  to?: string;
  out: string;
  runs: string;
  json: boolean;
}

export function registerScreened(program: Command): void {
  program
    .command("screened")
    .description("the screened files (v1/screened/DATE.json): every candidate of a day, for readers")
    .option(
      "--rebuild",
      "write them for published days from their run records (days published before them)",
      false,
    )
    .option(
      "--from <date>",
      "the first day to rebuild (default: the oldest published)",
      parseDayOption("--from"),
    )
    .option("--to <date>", "the last day to rebuild (default: the newest published)", parseDayOption("--to"))
    .option("--out <dir>", "the published folder, as `picks curate --out` wrote it", DEFAULT_PUBLIC_DIR)
    .option("--runs <dir>", "the run records, as `picks curate --runs` wrote them", DEFAULT_RUNS_DIR)
    .option("--json", "print the result as JSON", false)
    .action(async (flags: ScreenedFlags) => {
      if (!flags.rebuild)
        throw new UsageError("Expected `--rebuild`: `picks screened` only rebuilds for now");
      if (flags.from !== undefined && flags.to !== undefined && flags.from > flags.to) {
        throw new UsageError(
          `Expected \`--from\` (${flags.from}) to be no later than \`--to\` (${flags.to})`,
        );
      }
      const out = createOutput({ json: flags.json });
      const result = await rebuildScreened({
        outDir: flags.out,
        runsDir: flags.runs,
        ...(flags.from === undefined ? {} : { from: flags.from }),
        ...(flags.to === undefined ? {} : { to: flags.to }),
      });
      out.json(result);
      if (result.days.length === 0) throw new Error(`no published day in ${flags.out} within the range`);
      out.line(`wrote ${result.written.length} screened files of ${result.days.length} published days`);
      if (result.withoutTexts.length > 0) {
        out.line(`  titles only (no listing beside the run record): ${result.withoutTexts.join(", ")}`);
      }
      if (result.missing.length > 0) {
        // The others are written; the run fails so that a script sees the gap.
        throw new Error(
          `no run record in ${flags.runs} for ${result.missing.length} days, so no screened file: ${result.missing.join(", ")}`,
        );
      }
      if (result.written.length > 0) out.line("  `picks publish` uploads them with the rest of the folder");
    });
}
