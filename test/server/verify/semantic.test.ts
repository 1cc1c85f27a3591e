import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VerifyResultSchema } from "../../../pipeline/domain/verify-request.ts";
import { createSemanticChecker, SEMANTIC_ERROR_REASONS } from "../../../server/verify/semantic.ts";
import { semanticConfigFromEnv } from "../../../server/verify/semantic-config.ts";
import { MODEL_ANSWER_JSON_SCHEMA } from "../../../server/verify/semantic-prompt.ts";
import { verifyMessage } from "../../../server/verify/verify-message.ts";
import { completion, type FakeModel, json, startFakeModel } from "./fake-model.ts";
import { COLLEAGUE_FOLLOW_UP, FRIDAY_NOON_UTC, followUp, request } from "./messages.ts";

const MESSAGE = request({
  ...COLLEAGUE_FOLLOW_UP,
  subject: "Re: our call last week",
  body: "Hi Anna,\n\nAs we discussed, our tool cuts costs by 90% 🚀. Reply today or the offer expires.\n\nJonas",
});

const answer = (value: unknown) => completion(JSON.stringify(value));

let model: FakeModel;
beforeAll(async () => {
  model = await startFakeModel(() => undefined);
});
afterAll(async () => {
  await model.close();
});
/** What the checkers of this file wrote to their log (the server's stderr in production). */
let logged: string[] = [];
const log = (line: string) => {
  logged.push(line);
};
beforeEach(() => {
  model.calls.length = 0;
  logged = [];
});

const checker = (timeoutMs?: number) =>
  createSemanticChecker(
    { baseUrl: model.baseUrl, model: "review-small", apiKey: "test-key", timeoutMs },
    { log },
  );

/** The one structured log line of a failed review. */
const loggedFailure = () => {
  expect(logged).toHaveLength(1);
  return JSON.parse(logged[0] as string) as { event: string; code: string; model?: string; detail: string };
};

describe("semantic review against a fake model", () => {
  it("asks the model with a strict JSON schema and keeps verbatim quotes with their spans", async () => {
    model.reply = (_call, response) =>
      json(
        response,
        200,
        answer({
          verdict: "fail",
          reason: "Fakes a prior call\nand pressures the reader.",
          findings: [
            { kind: "fake_relationship", message: "No sign of a prior call.", quote: "As we discussed" },
            { kind: "pressure", message: "Artificial deadline.", quote: "Reply today or the offer expires." },
            { kind: "unsupported_claim", message: "90% is not supported.", quote: null },
          ],
        }),
      );
    const result = await checker()(MESSAGE);
    expect(result).toEqual({
      status: "fail",
      model: "review-small",
      reason: "Fakes a prior call and pressures the reader.",
      findings: [
        {
          kind: "fake_relationship",
          message: "No sign of a prior call.",
          quote: "As we discussed",
          evidence: { field: "body", start: 10, end: 25, text: "As we discussed" },
        },
        {
          kind: "pressure",
          message: "Artificial deadline.",
          quote: "Reply today or the offer expires.",
          // After the rocket emoji: code points, not UTF-16 units.
          evidence: { field: "body", start: 57, end: 90, text: "Reply today or the offer expires." },
        },
        { kind: "unsupported_claim", message: "90% is not supported." },
      ],
    });
    expect(MESSAGE.body.indexOf("Reply today")).toBe(58);
    const call = model.calls[0];
    if (!call) throw new Error("the fake model was not called");
    expect(call.method).toBe("POST");
    expect(call.url).toBe("/v1/chat/completions");
    expect(call.headers.authorization).toBe("Bearer test-key");
    expect(call.body).toMatchObject({
      model: "review-small",
      response_format: {
        type: "json_schema",
        json_schema: { name: "pre_send_review", strict: true, schema: MODEL_ANSWER_JSON_SCHEMA },
      },
    });
    const messages = (call.body as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(messages[1]?.content).toContain(JSON.stringify(MESSAGE.body));
  });

  it("drops quotes that do not occur verbatim and says how many", async () => {
    model.reply = (_call, response) =>
      json(
        response,
        200,
        answer({
          verdict: "warn",
          reason: "Pressure.",
          findings: [
            { kind: "pressure", message: "Deadline.", quote: "Reply today" },
            { kind: "pressure", message: "Invented.", quote: "Act within 24 hours" },
            {
              kind: "unsupported_claim",
              message: "Paraphrased.",
              quote: "our tool cuts costs by 90 percent",
            },
          ],
        }),
      );
    const result = await checker()(MESSAGE);
    expect(result.status).toBe("warn");
    expect(result.reason).toBe("Pressure. (2 quotes not found verbatim in the message were dropped)");
    expect(result.findings.map((finding) => finding.quote)).toEqual(["Reply today", undefined, undefined]);
    expect(result.findings[1]).toEqual({ kind: "pressure", message: "Invented." });
  });

  it.each([
    [
      "a malformed answer",
      (r: ServerResponse) => json(r, 200, completion("{verdict: pass")),
      "model_answer_invalid",
      "is not valid JSON",
    ],
    [
      "an answer off the schema",
      (r: ServerResponse) => json(r, 200, answer({ verdict: "ok", reason: "", findings: [] })),
      "model_answer_invalid",
      "does not match the expected schema (verdict:",
    ],
    [
      "an unknown finding kind",
      (r: ServerResponse) =>
        json(
          r,
          200,
          answer({ verdict: "warn", reason: "x", findings: [{ kind: "tone", message: "m", quote: null }] }),
        ),
      "model_answer_invalid",
      "findings.0.kind",
    ],
    [
      "an envelope without content",
      (r: ServerResponse) => json(r, 200, JSON.stringify({ choices: [] })),
      "model_answer_invalid",
      "no choices[0].message.content",
    ],
    [
      "a body that is not JSON",
      (r: ServerResponse) => json(r, 200, "<html>gateway</html>"),
      "model_answer_invalid",
      "not JSON",
    ],
    [
      "a refusal",
      (r: ServerResponse) =>
        json(r, 200, JSON.stringify({ choices: [{ message: { content: null, refusal: "I can't help." } }] })),
      "model_answer_invalid",
      "the model refused: I can't help.",
    ],
    [
      "HTTP 500",
      (r: ServerResponse) => json(r, 500, '{"error":{"message":"overloaded"}}'),
      "model_unavailable",
      'HTTP 500 ({"error":{"message":"overloaded"}})',
    ],
    [
      "HTTP 401 with the provider's account details",
      (r: ServerResponse) =>
        json(
          r,
          401,
          '{"error":{"message":"Incorrect API key provided: sk-proj-****wxyz. Organization org-7Hq2 has no access."}}',
        ),
      "model_unavailable",
      'HTTP 401 ({"error":{"message":"Incorrect API key provided: sk-proj-****wxyz',
    ],
  ])("gives error for %s: a code and a sentence, the detail only in the log", async (_name, reply, code, detail) => {
    model.reply = (_call, response) => reply(response);
    const result = await checker()(MESSAGE);
    expect(result).toEqual({
      status: "error",
      code,
      model: "review-small",
      reason: SEMANTIC_ERROR_REASONS[code as keyof typeof SEMANTIC_ERROR_REASONS],
      findings: [],
    });
    expect(loggedFailure()).toEqual({
      event: "verify_semantic_failed",
      code,
      model: "review-small",
      detail: expect.stringContaining(detail),
    });
  });

  it("asks once: a model answering 503 is not retried while the caller waits", async () => {
    model.reply = (_call, response) => json(response, 503, '{"error":"overloaded"}');
    expect(await checker()(MESSAGE)).toMatchObject({ status: "error", code: "model_unavailable" });
    expect(model.calls).toHaveLength(1);
    expect(loggedFailure().detail).toContain("failed after 1 attempt: HTTP 503");
  });

  it("does not read an answer over 1 MiB", async () => {
    model.reply = (_call, response) =>
      json(response, 200, answer({ verdict: "pass", reason: "x".repeat(1 << 20), findings: [] }));
    expect(await checker()(MESSAGE)).toMatchObject({ status: "error", code: "model_answer_invalid" });
    expect(loggedFailure().detail).toContain("the answer is larger than 1048576 bytes");
  });

  it("accepts an answer wrapped in a Markdown fence", async () => {
    const inner = JSON.stringify({ verdict: "pass", reason: "Fine.", findings: [] });
    model.reply = (_call, response) => json(response, 200, completion(`\`\`\`json\n${inner}\n\`\`\``));
    expect((await checker()(MESSAGE)).status).toBe("pass");
  });

  it("times out with the configured limit", async () => {
    model.reply = () => undefined; // never answers
    const started = performance.now();
    const result = await checker(150)(MESSAGE);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ status: "error", code: "model_timeout" });
    expect(result.reason).toBe("The semantic review failed: the language model did not answer in time.");
    expect(loggedFailure().detail).toBe("the model did not answer within 150 ms");
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(2000);
  });

  it("reports a refused connection as an error", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await createSemanticChecker(
      { baseUrl: `http://127.0.0.1:${port}/`, model: "m" },
      { log },
    )(MESSAGE);
    expect(result).toMatchObject({ status: "error", code: "model_unavailable" });
    // Which address and port the model is at, and how the connection failed, is the operator's to know.
    expect(JSON.stringify(result)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:\d{4,5}/);
    expect(loggedFailure().detail).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it("is skipped, never passed, without a model, and does not call one when llm_check is off", async () => {
    expect(await createSemanticChecker(undefined)(MESSAGE)).toMatchObject({
      status: "skipped",
      findings: [],
    });
    expect(await createSemanticChecker({ baseUrl: " ", model: "m" })(MESSAGE)).toMatchObject({
      status: "skipped",
    });
    const off = followUp({ options: { llm_check: false } });
    expect(await checker()(off)).toMatchObject({
      status: "skipped",
      reason: expect.stringContaining("llm_check"),
    });
    expect(model.calls).toEqual([]);
  });
});

describe("verifyMessage", () => {
  it("allows a good message with the review skipped and assembles a schema-valid result", async () => {
    const result = await verifyMessage(request(COLLEAGUE_FOLLOW_UP), {
      now: FRIDAY_NOON_UTC,
      semantic: createSemanticChecker(undefined),
    });
    expect(VerifyResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({
      verdict: "allow",
      risk: 0,
      semantic: { status: "skipped" },
      metadata: {
        checker_version: "1.0.0",
        timezone: "UTC",
        local_time: "2026-11-20T12:00:00+00:00",
        weekday: "Friday",
        offset_unit: "code_point",
      },
    });
    expect(result.checks.map((check) => check.id)).toEqual([
      "send_window",
      "recipient",
      "redlist",
      "placeholders",
      "secrets",
      "personal_data",
      "links",
      "ai_artifacts",
      "invisible_characters",
      "shouting",
      "spam_phrases",
      "opt_out",
    ]);
  });

  it.each([
    ["a malformed answer", (r: ServerResponse) => json(r, 200, completion("not json"))],
    ["HTTP 500", (r: ServerResponse) => json(r, 500, "{}")],
    ["a timeout", () => undefined],
  ])("warns at least when the model fails with %s", async (_name, reply: (r: ServerResponse) => void) => {
    model.reply = (_call, response) => reply(response);
    const result = await verifyMessage(request(COLLEAGUE_FOLLOW_UP), {
      now: FRIDAY_NOON_UTC,
      semantic: checker(150),
    });
    expect(result.semantic.status).toBe("error");
    expect(result.verdict).toBe("warn");
    expect(result.summary).toContain("semantic review failed");
    expect(VerifyResultSchema.safeParse(result).success).toBe(true);
  });

  it("blocks on a high-severity check whatever the model says", async () => {
    model.reply = (_call, response) =>
      json(response, 200, answer({ verdict: "pass", reason: "Fine.", findings: [] }));
    const result = await verifyMessage(followUp({ body: "Hi {{first_name}}, see you." }), {
      now: FRIDAY_NOON_UTC,
      semantic: checker(),
    });
    expect(result.semantic.status).toBe("pass");
    expect(result.verdict).toBe("block");
    expect(result.risk).toBeGreaterThanOrEqual(0.75);
  });

  it("turns a checker that throws into an error result", async () => {
    const result = await verifyMessage(request(COLLEAGUE_FOLLOW_UP), {
      now: FRIDAY_NOON_UTC,
      semantic: async () => {
        throw new Error("boom at /srv/picks/secret-path.ts");
      },
      log,
    });
    expect(result.semantic).toEqual({
      status: "error",
      code: "review_failed",
      reason: "The semantic review failed unexpectedly.",
      findings: [],
    });
    expect(loggedFailure().detail).toContain("boom at /srv/picks/secret-path.ts");
    expect(result.verdict).toBe("warn");
  });
});

describe("semanticConfigFromEnv", () => {
  it.each([
    [{}, undefined],
    [{ LLM_BASE_URL: "http://a/v1" }, undefined],
    [
      { LLM_BASE_URL: "http://a/v1", LLM_MODEL: "m", LLM_API_KEY: "k" },
      { baseUrl: "http://a/v1", model: "m", apiKey: "k" },
    ],
    [
      {
        VERIFY_LLM_BASE_URL: "http://v/v1",
        VERIFY_LLM_MODEL: "vm",
        LLM_BASE_URL: "http://a/v1",
        LLM_MODEL: "m",
        LLM_API_KEY: "k",
        VERIFY_LLM_TIMEOUT_MS: "2500",
      },
      { baseUrl: "http://v/v1", model: "vm", apiKey: "k", timeoutMs: 2500 },
    ],
    [
      { VERIFY_LLM_BASE_URL: "", LLM_BASE_URL: "http://a/v1", LLM_MODEL: "m" },
      { baseUrl: "http://a/v1", model: "m" },
    ],
  ])("maps %j", (env, expected) => {
    expect(semanticConfigFromEnv(env)).toEqual(expected);
  });
});
