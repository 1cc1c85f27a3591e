import type { Rubric } from "../../pipeline/domain/rubric.ts";
import { loadRubric } from "../../pipeline/rubric-file.ts";
import { rulesScorer } from "../../server/submissions/submission-service.ts";

/** The published rubric (data/rubric.json), as the CLI loads it. */
export const publishedRubric: Rubric = await loadRubric();

/** The rules scorer of submissions over the published rubric: what `picks serve` uses by default. */
export const publishedRules = rulesScorer(publishedRubric);

// The nine axes' ids in the order every answer lists them, written out here rather than read from the code under test.
export const AXES_IN_ORDER = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"];
