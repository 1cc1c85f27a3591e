import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { PICKS_BIN } from "../test/helpers/processes.ts";

const run = promisify(execFile);

/**
 * An enterprise key issued by `picks keys issue` into the state that `env` names, for keyed loads;
 * `program` issues it with another build's bin/picks.js, the one that serves that state.
 */
export async function enterpriseKey(
  env: Record<string, string>,
  label = "bench",
  program = PICKS_BIN,
): Promise<string> {
  const args = ["keys", "issue", "--tier", "enterprise", "--email", `${label}@example.org`, "--label", label];
  const { stdout } = await run(process.execPath, [program, ...args, "--json"], {
    env: { ...process.env, ...env },
  });
  return (JSON.parse(stdout) as { key: string }).key;
}
