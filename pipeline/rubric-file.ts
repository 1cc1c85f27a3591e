import { readFile } from "node:fs/promises";
import { parseRubric, type Rubric } from "./domain/rubric.ts";
import { projectPath } from "./project-root.ts";

export const RUBRIC_PATH = projectPath("data", "rubric.json");

/** Loads and checks the published rubric. */
export async function loadRubric(path = RUBRIC_PATH): Promise<Rubric> {
  return parseRubric(JSON.parse(await readFile(path, "utf8")));
}
