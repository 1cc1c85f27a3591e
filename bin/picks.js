#!/usr/bin/env node
// The `picks` program. It runs the prebuilt bundle in dist/ when that is newer than every source
// file, and otherwise compiles the TypeScript on the fly with tsx, so an edit is never run stale.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { unsupportedNode } from "./node-support.js";

// Test-only: PICKS_TEST_NODE_VERSION stands in for the running version, to test the refusal.
const refusal = unsupportedNode(process.env.PICKS_TEST_NODE_VERSION || process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}

// The AWS SDK warns on every start under Node.js 20 that its future releases need 22: this project's
// supported versions are stated once, above, and the lockfile holds a release that runs on 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

// V8's memory reducer, the collection that gives back what a busy spell grew once the process is
// quiet, runs only when every allocation rate it samples is low. On Node.js 26 (V8 14.6) the rate
// of a process that has never allocated on V8's C++ heap is exactly zero, which V8 takes for the
// highest: the reducer then waits for its 100 s watchdog, and a server keeps its start's garbage and
// grown young generation until then (a ten-year server on Node.js 26: 165-190 MB 45 s after its
// start instead of 132-141). A compiled vm.Script is such an allocation, of about 0.1 ms
// (docs/performance.md, "Settled RSS on Node.js 26").
new Script("");

const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = join(root, "dist", "main.js");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (process.env.PICKS_FROM_SOURCE === "1") return false;
  try {
    const built = statSync(bundle).mtimeMs;
    return ["cli", "server", "pipeline"].every((dir) => newestSource(join(root, dir)) < built);
  } catch {
    return false;
  }
}

if (bundleIsFresh()) {
  await import(bundle);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../cli/main.ts");
}
