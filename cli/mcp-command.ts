import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "./output.ts";
import { DEFAULT_PUBLIC_DIR } from "./paths.ts";
import { VERSION } from "./version.ts";

interface McpFlags {
  data: string;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description("serve the picks to agents over MCP on stdin/stdout: read-only, offline")
    .option("--data <dir>", "static site root holding v1/ (what `curate --out` writes)", DEFAULT_PUBLIC_DIR)
    .action(async (flags: McpFlags) => {
      const publicDir = resolve(flags.data);
      if (!(await isFolder(publicDir))) {
        throw new UsageError(
          `Expected \`--data\` to be a folder holding v1/, got \`${flags.data}\` (no such folder)`,
        );
      }
      // Loaded here, not at the top: the SDK takes ~150 ms to import, which other commands need not pay.
      const { runMcpStdio } = await import("../server/mcp/run-stdio.ts");
      const log = (message: string) => process.stderr.write(`picks mcp: ${message}\n`);
      await runMcpStdio({ publicDir, version: VERSION, log });
    });
}
