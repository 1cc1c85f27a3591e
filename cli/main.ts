import { Command, CommanderError } from "commander";
import { SourceError } from "../pipeline/sources/source.ts";
import { registerCurate } from "./curate-command.ts";
import { registerKeys } from "./keys-command.ts";
import { UsageError } from "./output.ts";
import { registerServe } from "./serve-command.ts";
import { VERSION } from "./version.ts";

const program = new Command("picks")
  .description("Research-Picks: daily-curated AI research picks")
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError("(run `picks --help` for usage)");
registerCurate(program);
registerServe(program);
registerKeys(program);

// The one place that turns failures into exit codes: 2 for a wrong call, 1 for a failed run.
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof UsageError) {
    process.stderr.write(`picks: ${error.message}\n`);
    process.exitCode = 2;
  } else if (error instanceof SourceError) {
    process.stderr.write(`picks: ${error.message}; nothing was published\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`picks: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  }
}
