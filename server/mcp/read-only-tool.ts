import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { CountToolCall } from "../metrics/service-metrics.ts";
import { type ArgumentHints, advertisedInput, parseToolArguments } from "./tool-input.ts";

/** A tool's answer before it goes on the wire: a value matching its output schema, or advice. */
export type ToolAnswer<T> = { ok: true; value: T } | { ok: false; message: string };

export const answer = <T>(value: T): ToolAnswer<T> => ({ ok: true, value });
export const refuse = <T>(message: string): ToolAnswer<T> => ({ ok: false, message });

/** Every tool here only reads local files: same arguments, same answer, nothing outside touched. */
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export interface ReadOnlyTool<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  hints?: ArgumentHints;
  run(args: z.output<I>, given: ReadonlySet<string>): Promise<ToolAnswer<z.output<O>>>;
}

/**
 * The answer as the protocol carries it. The text is the same JSON as `structuredContent`, for clients
 * that read only text; compact, because every character costs the agent context.
 */
function toResult(value: object): CallToolResult {
  const text = JSON.stringify(value);
  // Parsing the text back drops `undefined` members, so both forms are exactly the same JSON.
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
}

function toError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A tool call's arguments, checked: their parsed value and the names given (a null counts as not given). */
export type CheckedCall<T> =
  | { ok: true; value: T; given: ReadonlySet<string> }
  | { ok: false; message: string };

/** Checks the arguments a client sent against a tool's schema, with messages that name the fix. */
export function checkToolCall<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ReadOnlyTool<I, O>,
  raw: Record<string, unknown> | undefined,
): CheckedCall<z.output<I>> {
  const parsed = parseToolArguments(tool.name, tool.input, raw, tool.hints);
  if (!parsed.ok) return parsed;
  // A null argument counts as not given, as in parseToolArguments.
  const given = new Set(Object.keys(raw ?? {}).filter((key) => raw?.[key] !== null));
  return { ok: true, value: parsed.value, given };
}

/**
 * Runs a tool on checked arguments: bad arguments and failures come back as `isError` results, never
 * as throws. `failed` is set when the tool broke, so the answer must not be reused.
 */
export async function runToolCall<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ReadOnlyTool<I, O>,
  checked: CheckedCall<z.output<I>>,
  log: (message: string) => void,
  countToolCall: CountToolCall = () => {},
): Promise<CallToolResult & { failed?: true }> {
  if (!checked.ok) {
    countToolCall(tool.name, "refused");
    return toError(checked.message);
  }
  try {
    const result = await tool.run(checked.value, checked.given);
    countToolCall(tool.name, result.ok ? "ok" : "refused");
    return result.ok ? toResult(result.value) : toError(result.message);
  } catch (error) {
    countToolCall(tool.name, "error");
    log(`${tool.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const answer = toError(`${tool.name} failed unexpectedly (${String(error)}); the server log has details`);
    Object.defineProperty(answer, "failed", { value: true, enumerable: false });
    return answer;
  }
}

/** Runs a tool on the arguments a client sent (checkToolCall, then runToolCall). */
const callReadOnlyTool = <I extends z.ZodObject, O extends z.ZodObject>(
  tool: ReadOnlyTool<I, O>,
  raw: Record<string, unknown> | undefined,
  log: (message: string) => void,
  count?: CountToolCall,
): Promise<CallToolResult & { failed?: true }> => runToolCall(tool, checkToolCall(tool, raw), log, count);

/** Registers a tool whose bad arguments and failures come back as `isError` results, never as throws. */
export function registerReadOnlyTool<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  tool: ReadOnlyTool<I, O>,
  log: (message: string) => void,
  count?: CountToolCall,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: advertisedInput(tool.input),
      outputSchema: tool.output,
      annotations: READ_ONLY,
    },
    (raw: Record<string, unknown>) => callReadOnlyTool(tool, raw, log, count),
  );
}
