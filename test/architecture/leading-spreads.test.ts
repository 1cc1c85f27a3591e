import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, it } from "vitest";

// Node 20's V8 makes an object literal that starts with a spread (`{ ...a, b }`) in its old
// generation. One made for every request piles up there and keeps what it points to alive until the
// next mark-compact: that was MCP's and verify's tail (docs/performance.md, "The fifth round"). So no
// such literal may run per request on the serving path. Write the fields out, or use copyWith
// (server/copy-with.ts) or withHeader (server/http/answers.ts). A literal that runs at start-up, once
// per key or per change of the published days is excused by a comment saying "not per request" on
// it, on its statement, or on the function it runs in (a callback passed in a call is part of its
// statement, so the search goes on past it), and no further: a comment on a factory does not excuse
// the request handlers it makes.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** What a keyed read, an MCP call, a verify request or a snapshot request runs through. */
const SERVING_PATH = [
  "server/http",
  "server/mcp",
  "server/verify",
  "server/access",
  "server/metrics",
  "server/store",
  "server/validation",
  "server/snapshots",
  "server/oauth",
  "server/routes/papers-routes.ts",
  "server/routes/mcp-routes.ts",
  "server/routes/verify-routes.ts",
  "server/copy-with.ts",
];

function sourceFiles(path: string): string[] {
  if (path.endsWith(".ts")) return [path];
  return readdirSync(join(ROOT, path), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() || entry.name.endsWith(".ts") ? sourceFiles(join(path, entry.name)) : [],
  );
}

/** Whether a comment on the literal, its statement or its function says it does not run per request. */
function excused(node: ts.Node, source: ts.SourceFile): boolean {
  const says = (at: ts.Node) =>
    (ts.getLeadingCommentRanges(source.text, at.getFullStart()) ?? []).some((range) =>
      /not per request/i.test(source.text.slice(range.pos, range.end)),
    );
  for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at); at = at.parent) {
    if (says(at)) return true;
    if (!ts.isFunctionLike(at) || ts.isCallExpression(at.parent)) continue;
    // The function's own comment may sit on its declaration: `const f = () => ...`, `f: () => ...`.
    for (
      let outer = at.parent;
      outer && !ts.isBlock(outer) && !ts.isSourceFile(outer);
      outer = outer.parent
    ) {
      if (says(outer)) return true;
      if (ts.isVariableStatement(outer) || ts.isPropertyAssignment(outer)) break;
    }
    return false;
  }
  return false;
}

/** `file:line: text` for every literal of `text` that starts with a spread and is not excused. */
function leadingSpreads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const first = ts.isObjectLiteralExpression(node) ? node.properties[0] : undefined;
    if (first && ts.isSpreadAssignment(first) && !excused(node, source)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: ${node.getText().slice(0, 60).replace(/\s+/g, " ")}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it("finds a leading spread, and takes a comment saying it is not per request as its excuse", () => {
  const code = [
    "export const a = (x: object) => ({ ...x, b: 1 });",
    "export const b = (x: object) => ({ b: 1, ...x });",
    "// Not per request: once at start-up.",
    "export const c = (x: object) => ({ ...x, b: 1 });",
    "/** Built once per key (not per request). */",
    "export function d(x: object) {",
    "  return { ...x, b: 1 };",
    "}",
    "// Not per request: the factory runs once, but the handler it makes runs for every request.",
    "export function e() {",
    "  return (x: object) => ({ ...x, b: 1 });",
    "}",
    "// Not per request: the callback runs within this statement, at load.",
    "export const f = [{}].map((x) => ({ ...x, b: 1 }));",
  ].join("\n");
  expect(leadingSpreads("example.ts", code)).toEqual([
    "example.ts:1: { ...x, b: 1 }",
    "example.ts:11: { ...x, b: 1 }",
  ]);
});

it("no literal on the serving path starts with a spread, unless it says it does not run per request", () => {
  const found = SERVING_PATH.flatMap(sourceFiles).flatMap((file) =>
    leadingSpreads(file, readFileSync(join(ROOT, file), "utf8")),
  );
  expect(found).toEqual([]);
});
