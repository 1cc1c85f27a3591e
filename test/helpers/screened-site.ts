import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { curate } from "../../pipeline/curate.ts";
import { type ScreenedDay, ScreenedDaySchema } from "../../pipeline/domain/screened.ts";
import { RANKED_SELECTION } from "../../pipeline/domain/selection.ts";
import { loadRelevanceModel, newestModelPath } from "../../pipeline/relevance-file.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { createFileSource } from "../../pipeline/sources/file-source.ts";
import { LISTING_250, LISTING_PARTIAL } from "./fixtures.ts";

/**
 * The days of the screened site, oldest first: the recorded 26-row listing, four times more without its
 * first paper (so that one is screened on the oldest day only), then the 250.
 */
export const SCREENED_SITE_DAYS = [
  "2026-06-01",
  "2026-06-03",
  "2026-06-05",
  "2026-06-08",
  "2026-06-10",
  "2026-06-12",
];
/** The day whose screened file is removed, as if it was published before screened files existed. */
export const DAY_WITHOUT_SCREENED = "2026-06-03";

/**
 * A site of six real days ranked by the newest relevance model, each with its screened file but one,
 * spanning twelve days: wider than the free tier's seven days of history.
 */
export async function publishScreenedSite(): Promise<{
  publicDir: string;
  runsDir: string;
  screened: Map<string, ScreenedDay>;
  /** The paper screened on the oldest day only. */
  oldestOnly: string;
}> {
  const root = await mkdtemp(join(tmpdir(), "picks-screened-site-"));
  const publicDir = join(root, "public");
  const runsDir = join(root, "runs");
  const rubric = await loadRubric();
  const ranker = await loadRelevanceModel(await newestModelPath());
  const rows = (await readFile(LISTING_PARTIAL, "utf8")).split("\n").filter((line) => line.trim() !== "");
  const first = (JSON.parse(rows[0] as string) as { id: string }).id;
  const without = join(root, "listing-without-first.jsonl");
  await writeFile(without, `${rows.filter((row) => !row.includes(`"${first}"`)).join("\n")}\n`);
  for (const date of SCREENED_SITE_DAYS) {
    const listing = date === "2026-06-12" ? LISTING_250 : date === "2026-06-01" ? LISTING_PARTIAL : without;
    await curate({
      date,
      source: createFileSource(listing),
      outDir: publicDir,
      runsDir,
      rubric,
      selection: RANKED_SELECTION,
      ranker,
      now: () => new Date("2026-11-21T06:00:00Z"),
    });
  }
  await rm(join(publicDir, "v1", "screened", `${DAY_WITHOUT_SCREENED}.json`));
  const screened = new Map<string, ScreenedDay>();
  for (const date of SCREENED_SITE_DAYS.filter((day) => day !== DAY_WITHOUT_SCREENED)) {
    const text = await readFile(join(publicDir, "v1", "screened", `${date}.json`), "utf8");
    screened.set(date, ScreenedDaySchema.parse(JSON.parse(text)));
  }
  return { publicDir, runsDir, screened, oldestOnly: first };
}
