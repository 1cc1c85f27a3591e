import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../publish.ts";
import { type JudgeAnswer, JudgeAnswerSchema } from "./judge-answer.ts";

/** What makes an answer reusable: the same paper, rubric, model and instructions. */
export interface JudgeCacheKey {
  candidateId: string;
  rubricVersion: string;
  model: string;
  promptVersion: string;
}

const EntrySchema = z.object({
  key: z.object({
    candidateId: z.string(),
    rubricVersion: z.string(),
    model: z.string(),
    promptVersion: z.string(),
  }),
  answer: JudgeAnswerSchema,
  created_at: z.string(),
});

export interface JudgeCache {
  get(key: JudgeCacheKey): Promise<JudgeAnswer | undefined>;
  set(key: JudgeCacheKey, answer: JudgeAnswer, createdAt: string): Promise<void>;
}

const fileName = (key: JudgeCacheKey): string =>
  `${createHash("sha256")
    .update(JSON.stringify([key.candidateId, key.rubricVersion, key.model, key.promptVersion]))
    .digest("hex")
    .slice(0, 40)}.json`;

/**
 * Validated answers as one JSON file each under `dir`, written atomically. An unreadable or foreign
 * entry is a miss, never an error: the worst case is paying for the answer again.
 */
export function createJudgeCache(dir: string): JudgeCache {
  return {
    async get(key) {
      let text: string;
      try {
        text = await readFile(join(dir, fileName(key)), "utf8");
      } catch {
        return undefined;
      }
      try {
        const entry = EntrySchema.parse(JSON.parse(text));
        const same =
          entry.key.candidateId === key.candidateId &&
          entry.key.rubricVersion === key.rubricVersion &&
          entry.key.model === key.model &&
          entry.key.promptVersion === key.promptVersion;
        return same ? entry.answer : undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, answer, createdAt) {
      const entry = { key, answer, created_at: createdAt };
      await writeFileAtomic(join(dir, fileName(key)), `${JSON.stringify(entry, null, 2)}\n`);
    },
  };
}
