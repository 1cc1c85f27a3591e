import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, it } from "vitest";

// Node 20's V8 makes an object literal that starts with a spread (`{ ...a, b }`) in its old
// generation; one made for every request piles up there and keeps what it points to alive until the
// next mark-compact. Node 22, 24 and 26 make it young like any other object (docs/performance.md,
// "Leading spreads on Node 22, 24 and 26"), so the rule holds only where a server still on Node 20
// spends most of its time: the fast routes and what they share, in server/http. There, copy headers
// with withHeader (server/http/node-answer.ts) or write the fields out. It goes when Node 20 leaves
// `engines`.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The fast routes (server/http/fast-routes.ts), the snapshot files' fast path and the listener. */
const FAST_PATH = [
  "server/http/fast-routes.ts",
  "server/http/fast-path.ts",
  "server/http/keyed-fast-path.ts",
  "server/http/verify-fast-path.ts",
  "server/http/node-answer.ts",
  "server/http/listen.ts",
];
/**
 * Files of FAST_PATH allowed a leading spread, because theirs run once (at start-up, at a reload), not
 * per request: named here, where the rule is, never excused by a comment beside the code. None today.
 */
const ALLOWED: readonly string[] = [];

/** `file:line: text` for every literal of `text` that starts with a spread. */
function leadingSpreads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const first = ts.isObjectLiteralExpression(node) ? node.properties[0] : undefined;
    if (first && ts.isSpreadAssignment(first)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: ${node.getText().slice(0, 60).replace(/\s+/g, " ")}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it("finds a literal that starts with a spread, and only that", () => {
  const code = [
    "export const a = (x: object) => ({ ...x, b: 1 });",
    "export const b = (x: object) => ({ b: 1, ...x });",
    "export const c = (x: object) => Object.assign({}, x, { b: 1 });",
    "export const d = [{}].map((x) => ({ ...x, b: 1 }));",
  ].join("\n");
  expect(leadingSpreads("example.ts", code)).toEqual([
    "example.ts:1: { ...x, b: 1 }",
    "example.ts:4: { ...x, b: 1 }",
  ]);
});

it("names files that exist, and allows only files it checks", () => {
  const files = readdirSync(join(ROOT, "server/http")).map((name) => `server/http/${name}`);
  for (const file of FAST_PATH) expect(files, file).toContain(file);
  for (const file of ALLOWED) expect(FAST_PATH, file).toContain(file);
});

it("no literal on the fast path starts with a spread, outside the files allowed", () => {
  const found = FAST_PATH.filter((file) => !ALLOWED.includes(file)).flatMap((file) =>
    leadingSpreads(file, readFileSync(join(ROOT, file), "utf8")),
  );
  expect(found).toEqual([]);
});
