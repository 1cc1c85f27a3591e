// Run as an ordinary user by publish-history.test.ts: root reads a folder whatever its mode, so the
// permission failure it guards against can only be staged without root.
import { chmod, mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curate } from "../../pipeline/curate.ts";
import { DEFAULT_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createSampleSource } from "../../pipeline/sources/sample-source.ts";

const root = await mkdtemp(join(tmpdir(), "picks-history-"));
const dirs = { outDir: join(root, "public"), runsDir: join(root, "runs") };
const rubric = await loadRubric();
const run = (date: string) =>
  curate({
    date,
    source: createSampleSource(),
    ...dirs,
    rubric,
    selection: DEFAULT_SELECTION,
    now: () => new Date(`${date}T06:00:00Z`),
  });

await run("2026-11-18");
const v1 = join(dirs.outDir, "v1");
const read = () => Promise.all(["stats.json", "recent.json"].map((name) => readFile(join(v1, name), "utf8")));
const before = await read();
// Writable and searchable but not listable: the writes of a run would succeed, only readdir fails.
await chmod(join(v1, "daily"), 0o300);
let error: string | null = null;
try {
  await run("2026-11-19");
} catch (caught) {
  error = (caught as Error).message;
} finally {
  await chmod(join(v1, "daily"), 0o755);
}
const after = await read();
const files = await readdir(join(v1, "daily"));
process.stdout.write(
  `${JSON.stringify({ error, unchanged: after.every((text, i) => text === before[i]), files })}\n`,
);
