import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";

/**
 * A Python that has the MCP SDK: `PICKS_MCP_PYTHON` (.ci/run makes a virtual environment and sets it),
 * else `python3` when it can import `mcp`. Undefined when neither has it, so the test says it was skipped.
 */
export function mcpPython(): string | undefined {
  for (const python of [process.env.PICKS_MCP_PYTHON, "python3"]) {
    if (!python) continue;
    try {
      execFileSync(python, ["-c", "import mcp"], { stdio: "ignore" });
      return python;
    } catch {
      // Not this one: try the next.
    }
  }
  return undefined;
}

export interface PythonToolCall {
  tools: string[];
  is_error: boolean;
  structured: unknown;
}

const CLIENT = new URL("../e2e/mcp-python-client.py", import.meta.url).pathname;

/** Connects the Python SDK's client to `url` with one header, lists the tools and calls `tool`. */
export async function callWithPythonSdk(
  python: string,
  url: string,
  header: [string, string],
  tool: string,
  args: Record<string, unknown>,
): Promise<PythonToolCall> {
  const { stdout } = await promisify(execFile)(python, [CLIENT, url, ...header, tool, JSON.stringify(args)], {
    timeout: 30_000,
  });
  return JSON.parse(stdout) as PythonToolCall;
}
