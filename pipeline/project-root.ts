import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder holding package.json, found upward from this module: right both when the code runs
 * from its sources (pipeline/) and from the prebuilt bundle (dist/), which sit at different depths.
 */
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the project: `projectPath("data", "rubric.json")`. */
export const projectPath = (...segments: string[]): string => join(PROJECT_ROOT, ...segments);
