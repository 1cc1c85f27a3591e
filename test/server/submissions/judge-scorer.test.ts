import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submissionScorerFromEnv } from "../../../cli/worker-command.ts";
import { AXIS_IDS } from "../../../pipeline/domain/score.ts";
import type { SubmissionView } from "../../../pipeline/domain/submission.ts";
import { createSubmissionWorker } from "../../../server/submissions/submission-worker.ts";
import { clientFor, postJson } from "../../helpers/app-client.ts";
import { publishedRubric } from "../../helpers/rubric.ts";
import {
  ABOUT_PAGE,
  type PageServer,
  SUBMISSION,
  startChatModel,
  startPageServer,
  submissionContext,
  waitFor,
} from "./helpers.ts";

/** An OpenAI-compatible model on loopback: 4 on A1, 2 elsewhere; nonsense for a runtime named Broken. */
let model: PageServer;
let pages: PageServer;
beforeAll(async () => {
  model = await startChatModel((paper) =>
    String(paper.title).startsWith("Broken")
      ? "What a fine runtime."
      : JSON.stringify({
          axes: Object.fromEntries(
            AXIS_IDS.map((axis) => [axis, { score: axis === "A1" ? 4 : 2, evidence: [] }]),
          ),
          reg_fit: { score: 2, rationale: "Logged, but no monitoring.", evidence: [] },
        }),
  );
  pages = await startPageServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(ABOUT_PAGE),
  );
});
afterAll(async () => {
  await model.close();
  await pages.close();
});

describe("the judge as the scorer of submissions", () => {
  it("scores with the configured model, and falls back to the rules on an unusable answer", async () => {
    const warnings: string[] = [];
    const score = submissionScorerFromEnv(
      { LLM_BASE_URL: `${model.url}/v1`, LLM_MODEL: "m" },
      (line) => warnings.push(line),
      publishedRubric,
    );
    expect(score).toBeDefined();
    const context = await submissionContext({ submissions: { ...(score ? { score } : {}) } });
    const worker = createSubmissionWorker(context.submissions);
    await worker.start();
    const { call } = await clientFor("in-process", context);
    try {
      for (const runtime_name of ["Harbor", "Broken Harbor"]) {
        const response = await call(
          "/v1/score/submit",
          postJson({ ...SUBMISSION, runtime_name, url: `${pages.url}/` }),
        );
        expect(response.status).toBe(202);
      }
      const view = (id: number) =>
        waitFor(async () => {
          const found = (await (await call(`/v1/score/submission/${id}`)).json()) as SubmissionView;
          return found.status === "scored" ? found : null;
        });
      const judged = await view(1);
      // The model quotes nothing, so no axis goes above the rules (5 5 0 5 5 0 0 0 2 for this page):
      // 4 2 0 2 2 0 0 0 2, and REG FIT 1 as the rules decide.
      expect(judged.scores).toMatchObject({ scorer: "llm", total: 12, reg_fit: { score: 1 } });
      const fellBack = await view(2);
      expect(fellBack.scores?.scorer).toBe("rules");
      expect(warnings).toEqual([expect.stringMatching(/^submission-2: the judge fell back to the rules: /)]);
      expect(model.requests).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  });

  it.each([
    [{}, undefined],
    [{ LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "m", SUBMIT_SCORER: "rules" }, undefined],
  ])("uses the rules for %j", (env, expected) => {
    expect(submissionScorerFromEnv(env, () => {}, publishedRubric)).toBe(expected);
  });

  it.each([
    [{ SUBMIT_SCORER: "llm" }, "SUBMIT_SCORER=llm needs LLM_BASE_URL and LLM_MODEL"],
    [{ SUBMIT_SCORER: "gpt" }, "Expected SUBMIT_SCORER to be `rules` or `llm`, got `gpt`"],
  ])("refuses %j", (env, message) => {
    expect(() => submissionScorerFromEnv(env, () => {}, publishedRubric)).toThrow(message);
  });
});
