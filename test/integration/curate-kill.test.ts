import { execFile, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DailySnapshotSchema } from "../../pipeline/domain/snapshot.ts";
import { LISTING_250 } from "../helpers/fixtures.ts";
import { PICKS_BIN } from "../helpers/processes.ts";

const run = promisify(execFile);

/** Every published file parses; every daily snapshot matches its schema. */
async function assertSiteValid(publicDir: string, temps: "allowed" | "none"): Promise<string[]> {
  const daily = join(publicDir, "v1", "daily");
  const names = await readdir(daily);
  for (const name of names) {
    // A killed writer may leave its temporary file; the next run removes it.
    if (name.endsWith(".tmp"))
      expect(temps, `temporary file ${name} left after a completed run`).toBe("allowed");
    else DailySnapshotSchema.parse(JSON.parse(await readFile(join(daily, name), "utf8")));
  }
  for (const name of ["recent.json", "stats.json", "axes.json"])
    JSON.parse(await readFile(join(publicDir, "v1", name), "utf8"));
  return names.filter((name) => name.endsWith(".json")).sort();
}

describe("picks curate killed mid-write", () => {
  it("leaves the previous snapshots valid, and the next run completes", async () => {
    const root = await mkdtemp(join(tmpdir(), "picks-curate-kill-"));
    const publicDir = join(root, "public");
    const args = (date: string) => [
      PICKS_BIN,
      "curate",
      "--source",
      `file:${LISTING_250}`,
      "--date",
      date,
      "--out",
      publicDir,
      "--runs",
      join(root, "runs"),
    ];
    await run(process.execPath, args("2026-06-12"));
    const before = await assertSiteValid(publicDir, "none");
    const original = await readFile(join(publicDir, "v1", "daily", "2026-06-12.json"), "utf8");

    // Kill runs for another day at spread-out moments, from start-up to the writes at the end.
    for (const delay of [100, 200, 300, 400, 500, 650, 800]) {
      const child = spawn(process.execPath, args("2026-06-13"), { stdio: "ignore" });
      // Listen before the kill: a fast run may have finished by then.
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await new Promise((resolve) => setTimeout(resolve, delay));
      child.kill("SIGKILL");
      await exited;
      const names = await assertSiteValid(publicDir, "allowed");
      expect(names).toEqual(expect.arrayContaining(before));
      expect(await readFile(join(publicDir, "v1", "daily", "2026-06-12.json"), "utf8")).toBe(original);
    }

    await run(process.execPath, args("2026-06-13"));
    expect(await assertSiteValid(publicDir, "none")).toEqual([
      "2026-06-12.json",
      "2026-06-13.json",
      "latest.json",
    ]);
    const latest = JSON.parse(await readFile(join(publicDir, "v1", "daily", "latest.json"), "utf8")) as {
      date: string;
    };
    expect(latest.date).toBe("2026-06-13");
    // Nine real runs of the program: generous for a loaded two-core machine.
  }, 120_000);
});
