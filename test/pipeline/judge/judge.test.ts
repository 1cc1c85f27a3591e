// The fake model answers what an OpenAI-compatible server answers; there is no recorded model body in
// ../shared/fixtures, so its answers are built here from the paper it is asked about.

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { curate } from "../../../pipeline/curate.ts";
import type { Candidate } from "../../../pipeline/domain/candidate.ts";
import type { Rubric } from "../../../pipeline/domain/rubric.ts";
import { AXIS_IDS } from "../../../pipeline/domain/score.ts";
import { DEFAULT_SELECTION } from "../../../pipeline/domain/selection.ts";
import { createHttpClient, type HttpClient } from "../../../pipeline/http.ts";
import { createJudgeCache } from "../../../pipeline/judge/judge-cache.ts";
import { judgeConfigFromEnv } from "../../../pipeline/judge/judge-config.ts";
import { readDataBlock } from "../../../pipeline/judge/judge-prompt.ts";
import { createLlmJudge } from "../../../pipeline/judge/llm-judge.ts";
import { loadRubric } from "../../../pipeline/rubric-file.ts";
import { createFileSource } from "../../../pipeline/sources/file-source.ts";
import type { CandidateSource } from "../../../pipeline/sources/source.ts";
import type { FakeReply, SeenRequest } from "../../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../../helpers/fake-upstream-hooks.ts";
import { LISTING_250 } from "../../helpers/fixtures.ts";

const COMPLETIONS = "/v1/chat/completions";
const fake = useFakeUpstream();
let client: HttpClient;
let rubric: Rubric;
let day: Candidate[];

/** Five real candidates of the recorded day. */
const five: CandidateSource = {
  name: "file:five",
  async load(date) {
    const batch = await createFileSource(LISTING_250).load(date);
    return { ...batch, candidates: batch.candidates.slice(0, 5) };
  },
};

beforeAll(async () => {
  rubric = await loadRubric();
  day = (await five.load("2026-06-12")).candidates;
});
afterEach(() => client?.close());

/** The paper a request is about, read from the user message's data block. */
function paperOf(request: SeenRequest): { id: string; title: string; abstract: string } {
  const body = JSON.parse(request.body) as { messages: Array<{ content: string }> };
  return readDataBlock(body.messages[1]?.content ?? "") as { id: string; title: string; abstract: string };
}

/**
 * Answers like a model: 4 on A1, 2 elsewhere, REG FIT 2, and on every axis a real quote (the first
 * sentence of the abstract, in capitals) and an invented one.
 */
function model(request: SeenRequest): FakeReply {
  const paper = paperOf(request);
  if (paper.id === day[1]?.id) return { status: 500, body: '{"error":"overloaded"}' };
  const firstSentence = paper.abstract.split(/(?<=\.) /)[0] ?? "";
  const content =
    paper.id === day[2]?.id
      ? "I think this paper is great."
      : JSON.stringify({
          axes: Object.fromEntries(
            AXIS_IDS.map((axis) => [
              axis,
              {
                score: axis === "A1" ? 4 : 2,
                evidence: [
                  { signal: `${axis}.first`, quote: firstSentence.toUpperCase() },
                  { signal: `${axis}.invented`, quote: "a sentence the paper never wrote" },
                ],
              },
            ]),
          ),
          reg_fit: { score: 2, rationale: "Validated, but  no monitoring.", evidence: [] },
        });
  return {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
      usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 },
    }),
  };
}

async function judgeDay(cacheDir: string) {
  const root = await mkdtemp(join(tmpdir(), "picks-judge-"));
  client = createHttpClient({
    userAgent: "test",
    retries: 1,
    backoffBaseMs: 1,
    upstreams: { llm: { concurrency: 2 } },
  });
  const config = judgeConfigFromEnv({
    LLM_BASE_URL: `${fake.url}/v1/`,
    LLM_MODEL: "judge-model",
    LLM_API_KEY: "sk-test",
    LLM_INPUT_USD_PER_MTOK: "2.5",
    LLM_OUTPUT_USD_PER_MTOK: "10",
  });
  if (!config) throw new Error("expected a judge configuration");
  return curate({
    date: "2026-06-12",
    source: five,
    outDir: join(root, "public"),
    runsDir: join(root, "runs"),
    rubric,
    selection: DEFAULT_SELECTION,
    now: () => new Date("2026-06-12T06:00:00Z"),
    scorer: createLlmJudge({ client, config, cache: createJudgeCache(cacheDir), now: () => new Date() }),
  });
}

describe("the language-model judge", () => {
  it("scores each candidate in one schema-bound request, falls back per candidate, and accounts tokens and cost", async () => {
    fake.route("POST", COMPLETIONS, model);
    const cacheDir = await mkdtemp(join(tmpdir(), "picks-judge-cache-"));
    const { record } = await judgeDay(cacheDir);

    // Candidates are scored a few at a time, so requests may arrive in any order: take the first paper's.
    const request = fake.requests.find((item) => item.body.includes(day[0]?.id ?? "none"));
    const first = JSON.parse(request?.body ?? "{}");
    expect(first.model).toBe("judge-model");
    expect(first.response_format.type).toBe("json_schema");
    expect(first.response_format.json_schema.strict).toBe(true);
    expect(first.response_format.json_schema.schema.required).toEqual(["axes", "reg_fit"]);
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(first.messages[0].content).toContain(`rubric ${rubric.version}`);

    expect(first.messages[1].content).toContain(day[0]?.summary.slice(0, 40));
    expect(readDataBlock(first.messages[1].content)).toMatchObject({ title: expect.any(String) });

    // A voting-theory paper the rules score 0 everywhere: the model's 4 and 2s are held to its quotes.
    // The first sentence ("...a group of agents abstaining...") is in the text and shows A1.agents and
    // A4.abstention, so those two axes may rise one level above the rules; the invented quote and the
    // other axes earn nothing.
    const byId = new Map(record.candidates.map((entry) => [entry.id, entry.scores]));
    const judged = byId.get(day[0]?.id ?? "");
    expect(judged?.scorer).toBe("llm");
    expect(judged?.total).toBe(2);
    expect(judged?.groups).toEqual({ substrate: 1, governance: 1, research: 0 });
    const firstSentence = day[0]?.summary.split(/(?<=\.) /)[0];
    expect(judged?.axes.A1).toEqual({
      score: 1,
      evidence: [{ signal: "llm: A1.agents", text: firstSentence }],
    });
    expect(judged?.axes.A2).toEqual({ score: 0, evidence: [] });
    // The model's rationale is not published; the rationale says what was quoted (nothing here).
    expect(judged?.reg_fit).toEqual({
      score: 2,
      rationale:
        "REG FIT 2, passes with named remediation (language-model judge). No quote the model gave is in the text and shows a REG FIT criterion.",
      evidence: [],
    });
    expect(byId.get(day[1]?.id ?? "")?.scorer).toBe("rules");
    expect(byId.get(day[2]?.id ?? "")?.scorer).toBe("rules");

    expect(record.scoring).toMatchObject({
      scorer: "llm",
      model: "judge-model",
      llm_scored: 3,
      cache_hits: 0,
    });
    expect(record.scoring.fallbacks.map((fallback) => fallback.id).sort()).toEqual(
      [day[1]?.id, day[2]?.id].sort(),
    );
    const reasons = record.scoring.fallbacks.map((fallback) => fallback.reason).join(" | ");
    expect(reasons).toContain("HTTP 500");
    expect(reasons).toContain("the model's answer is not valid JSON");
    // The failed request billed nothing; the unusable answer was billed.
    expect(record.scoring.usage).toEqual({
      requests: 5,
      prompt_tokens: 4000,
      completion_tokens: 800,
      cost_usd: 0.018,
    });
    expect(fake.requests).toHaveLength(6);
  });

  it("costs nothing on a rerun: validated answers come from the cache", async () => {
    fake.route("POST", COMPLETIONS, model);
    const cacheDir = await mkdtemp(join(tmpdir(), "picks-judge-cache-"));
    await judgeDay(cacheDir);
    fake.requests.length = 0;
    const { record } = await judgeDay(cacheDir);
    expect(record.scoring).toMatchObject({ llm_scored: 3, cache_hits: 3 });
    expect(record.scoring.usage.requests).toBe(2);
    const asked = fake.requests.map((request) => paperOf(request).id);
    expect(new Set(asked)).toEqual(new Set([day[1]?.id, day[2]?.id]));
  });

  it.each([
    ["LLM_BASE_URL only", { LLM_BASE_URL: "http://127.0.0.1:1" }, undefined],
    ["a bad number", { LLM_BASE_URL: "http://x", LLM_MODEL: "m", LLM_TIMEOUT_MS: "soon" }, "LLM_TIMEOUT_MS"],
  ])("configuration: %s", (_name, env, problem) => {
    if (problem) expect(() => judgeConfigFromEnv(env)).toThrow(problem);
    else expect(judgeConfigFromEnv(env)).toBeUndefined();
  });
});
