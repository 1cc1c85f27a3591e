import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseRubric, type Rubric } from "./domain/rubric.ts";

export const RUBRIC_PATH = fileURLToPath(new URL("../data/rubric.json", import.meta.url));

/** Loads and checks the published rubric. */
export async function loadRubric(path = RUBRIC_PATH): Promise<Rubric> {
  return parseRubric(JSON.parse(await readFile(path, "utf8")));
}
