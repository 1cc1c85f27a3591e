import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runPicks } from "../helpers/processes.ts";
import { publishFixtureDays } from "../helpers/published.ts";

// `picks screened --rebuild` as an operator runs it, on a site whose days were published with their
// run records: the screened files are removed (as on days published before they existed) and rebuilt.

let site: { publicDir: string; runsDir: string };
const originals = new Map<string, Buffer>();

beforeAll(async () => {
  site = await publishFixtureDays();
  for (const day of ["2026-06-12", "2026-06-25"]) {
    originals.set(day, await readFile(join(site.publicDir, "v1", "screened", `${day}.json`)));
  }
}, 60_000);

/** A copy of the site and its run records without the screened files. */
async function withoutScreened(): Promise<{ publicDir: string; runsDir: string }> {
  const root = await mkdtemp(join(tmpdir(), "picks-rebuild-"));
  const publicDir = join(root, "public");
  const runsDir = join(root, "runs");
  await cp(site.publicDir, publicDir, { recursive: true });
  await cp(site.runsDir, runsDir, { recursive: true });
  await rm(join(publicDir, "v1", "screened"), { recursive: true });
  return { publicDir, runsDir };
}

const rebuild = (dirs: { publicDir: string; runsDir: string }, ...more: string[]) =>
  runPicks(["screened", "--rebuild", "--out", dirs.publicDir, "--runs", dirs.runsDir, ...more]);

describe("picks screened --rebuild", () => {
  it("writes every published day's screened file from its run record, the same bytes curate wrote", async () => {
    const dirs = await withoutScreened();
    const result = await rebuild(dirs);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("wrote 2 screened files of 2 published days");
    for (const [day, bytes] of originals) {
      expect(await readFile(join(dirs.publicDir, "v1", "screened", `${day}.json`)), day).toEqual(bytes);
    }
  });

  it("writes the days it can, names the days without a run record, and exits 1", async () => {
    const dirs = await withoutScreened();
    await rm(join(dirs.runsDir, "2026-06-25.json"));
    const result = await rebuild(dirs);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `picks: no run record in ${dirs.runsDir} for 1 days, so no screened file: 2026-06-25\n`,
    );
    expect(await readFile(join(dirs.publicDir, "v1", "screened", "2026-06-12.json"))).toEqual(
      originals.get("2026-06-12"),
    );
    await expect(readFile(join(dirs.publicDir, "v1", "screened", "2026-06-25.json"))).rejects.toThrow(
      /ENOENT/,
    );
  });

  it("exits 1 naming every day when there are no run records at all", async () => {
    const dirs = await withoutScreened();
    await rm(dirs.runsDir, { recursive: true });
    const result = await rebuild(dirs);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("for 2 days, so no screened file: 2026-06-12, 2026-06-25");
  });

  it("keeps to --from and --to", async () => {
    const dirs = await withoutScreened();
    await rm(join(dirs.runsDir, "2026-06-25.json"));
    const result = await rebuild(dirs, "--from", "2026-06-01", "--to", "2026-06-20");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("wrote 1 screened files of 1 published days");
  });

  it.each([
    [
      ["--from", "2026-06-20", "--to", "2026-06-01"],
      "Expected `--from` (2026-06-20) to be no later than `--to` (2026-06-01)",
    ],
    [["--from", "2026-02-30"], "Expected `--from` to be YYYY-MM-DD, got `2026-02-30`"],
  ])("refuses %j with exit 2", async (args, message) => {
    const dirs = await withoutScreened();
    const result = await rebuild(dirs, ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
