import type { z } from "zod";
import type { McpSnapshots } from "./fresh-snapshots.ts";
import { refuse, type ToolAnswer } from "./read-only-tool.ts";

// Parsed once per loaded file: the snapshot cache hands out the same Buffer until the file changes.
const parsedFiles = new WeakMap<Buffer, { ok: true; value: unknown } | { ok: false; problem: string }>();

function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  return issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/** `stats.json` or `axes.json`, parsed and checked, or advice when it is missing or broken. */
export async function readPublished<S extends z.ZodType>(
  snapshots: McpSnapshots,
  name: "stats" | "axes",
  schema: S,
): Promise<ToolAnswer<z.output<S>>> {
  await snapshots.refresh();
  const body = snapshots.file(name);
  if (!body) {
    return refuse(
      `no ${name}.json is published in ${snapshots.where} yet: the operator runs \`picks curate\``,
    );
  }
  let parsed = parsedFiles.get(body);
  if (!parsed) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      json = undefined;
    }
    const result = schema.safeParse(json);
    parsed = result.success
      ? { ok: true, value: result.data }
      : { ok: false, problem: json === undefined ? "not JSON" : firstProblem(result.error) };
    parsedFiles.set(body, parsed);
  }
  if (!parsed.ok) {
    return refuse(
      `${name}.json in ${snapshots.where} is not valid (${parsed.problem}); ` +
        "the operator reruns `picks curate`",
    );
  }
  return { ok: true, value: parsed.value as z.output<S> };
}
