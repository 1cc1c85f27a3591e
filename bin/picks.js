#!/usr/bin/env node
// The `picks` program. It runs the prebuilt bundle in dist/ when that is newer than every source
// file, and otherwise compiles the TypeScript on the fly with tsx, so an edit is never run stale.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
