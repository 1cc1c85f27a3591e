// The one place the CLI prints. Progress goes to stderr (and only on a terminal), results to stdout:
// plain lines for people, one JSON document with `--json` for machines.

export interface Output {
  progress(message: string): void;
  line(message: string): void;
  json(value: unknown): void;
}

export function createOutput(options: {
  json: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const showProgress = !options.json && stderr.isTTY === true;
  return {
    progress(message) {
      if (showProgress) stderr.write(`\x1b[2m… ${message}\x1b[0m\n`);
    },
    line(message) {
      if (!options.json) stdout.write(`${message}\n`);
    },
    json(value) {
      if (options.json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

/** A mistake in how the command was called: exit code 2 and the message, no stack trace. */
export class UsageError extends Error {
  override name = "UsageError";
}
