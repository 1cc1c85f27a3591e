import { Command, CommanderError } from "commander";
import { SourceError } from "../pipeline/sources/source.ts";
import { UsageError } from "./output.ts";
import { VERSION } from "./version.ts";

type Register = (program: Command) => void;

// Each command's module pulls in what it needs (the server, the MCP SDK, the pipeline); loading only
// the one being run keeps `picks curate` and `picks mcp` from paying for the others at start.
const COMMANDS: Record<string, () => Promise<Register>> = {
  curate: async () => (await import("./curate-command.ts")).registerCurate,
  backfill: async () => (await import("./backfill-command.ts")).registerBackfill,
  eval: async () => (await import("./eval-command.ts")).registerEval,
  train: async () => (await import("./train-command.ts")).registerTrain,
  embed: async () => (await import("./embed-command.ts")).registerEmbed,
  "train-folds": async () => (await import("./train-threads.ts")).registerTrainFolds,
  label: async () => (await import("./label-command.ts")).registerLabel,
  serve: async () => (await import("./serve-command.ts")).registerServe,
  mcp: async () => (await import("./mcp-command.ts")).registerMcp,
  keys: async () => (await import("./keys-command.ts")).registerKeys,
  worker: async () => (await import("./worker-command.ts")).registerWorker,
  bench: async () => (await import("./bench-command.ts")).registerBench,
  publish: async () => (await import("./publish-command.ts")).registerPublish,
  screened: async () => (await import("./screened-command.ts")).registerScreened,
};

const program = new Command("picks")
  .description("Research-Picks: daily-curated AI research picks")
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError("(run `picks --help` for usage)");

const wanted = process.argv[2];
const loaders =
  wanted !== undefined && Object.hasOwn(COMMANDS, wanted) ? [COMMANDS[wanted]] : Object.values(COMMANDS);

// The one place that turns failures into exit codes: 2 for a wrong call, 1 for a failed run.
try {
  for (const load of loaders) (await (load as () => Promise<Register>)())(program);
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
