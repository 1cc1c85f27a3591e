import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The arrows of the layout (docs/architecture.md), checked on every import, type-only ones included:
// cli -> server | pipeline; server -> pipeline/domain, pipeline/http.ts and pipeline/model-client.ts
// (the one outbound client and the one model client) and pipeline/origin (where the published files
// live, which the server reads); pipeline -> pipeline/domain;
// pipeline/domain imports zod and itself only; nothing imports cli; and no cycles anywhere.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SOURCE_FOLDERS = ["cli", "server", "pipeline", "bench", "bin"];
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/gm;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every source file with what it imports: project files as paths from the root, packages by name. */
const graph = new Map<string, { files: string[]; packages: string[] }>();
for (const file of SOURCE_FOLDERS.flatMap(sourceFiles)) {
  const files: string[] = [];
  const packages: string[] = [];
  for (const [, specifier] of readFileSync(join(ROOT, file), "utf8").matchAll(IMPORT)) {
    if (specifier?.startsWith(".")) files.push(normalize(join(dirname(file), specifier)));
    else if (specifier) packages.push(specifier);
  }
  graph.set(file, { files, packages });
}

/** The import cycles of the graph (Tarjan's strongly connected components of two files or more). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    for (const next of graph.get(file)?.files ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member) component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const arrows = (test: (from: string, to: string) => boolean): string[] =>
  [...graph].flatMap(([from, { files }]) =>
    files.filter((to) => test(from, to)).map((to) => `${from} -> ${to}`),
  );

describe("the import graph of the source", () => {
  it("reads every source folder", () => {
    for (const folder of ["cli", "server", "pipeline/domain", "server/store"]) {
      expect(
        [...graph.keys()].some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    }
  });

  it("has no import cycle, type-only imports included", () => {
    expect(cycles()).toEqual([]);
  });

  it("keeps pipeline/domain pure: it imports zod and itself only", () => {
    const domain = [...graph].filter(([file]) => file.startsWith("pipeline/domain/"));
    expect(
      domain.flatMap(([file, { packages }]) =>
        packages.filter((name) => name !== "zod").map((name) => `${file} -> ${name}`),
      ),
    ).toEqual([]);
    expect(
      arrows((from, to) => from.startsWith("pipeline/domain/") && !to.startsWith("pipeline/domain/")),
    ).toEqual([]);
  });

  it("lets server reach the pipeline only through its domain, its HTTP and model clients and the origin", () => {
    const allowed = (to: string) =>
      to.startsWith("pipeline/domain/") ||
      to.startsWith("pipeline/origin/") ||
      to === "pipeline/http.ts" ||
      to === "pipeline/model-client.ts";
    expect(
      arrows((from, to) => from.startsWith("server/") && to.startsWith("pipeline/") && !allowed(to)),
    ).toEqual([]);
  });

  it("has nothing import cli, and the pipeline import nothing of server", () => {
    expect(
      arrows((from, to) => !from.startsWith("cli/") && !from.startsWith("bin/") && to.startsWith("cli/")),
    ).toEqual([]);
    expect(arrows((from, to) => from.startsWith("pipeline/") && to.startsWith("server/"))).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself)", () => {
    graph.set("server/a.ts", { files: ["server/b.ts"], packages: [] });
    graph.set("server/b.ts", { files: ["server/a.ts"], packages: [] });
    try {
      expect(cycles()).toContainEqual(["server/a.ts", "server/b.ts"]);
    } finally {
      graph.delete("server/a.ts");
      graph.delete("server/b.ts");
    }
  });
});
