import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpClient, type HttpClientOptions } from "../../pipeline/http.ts";
import {
  backoffDelay,
  HttpError,
  isRetryableStatus,
  parseRetryAfter,
  userAgent,
} from "../../pipeline/http-rules.ts";
import {
  createModelClient,
  MAX_MODEL_ANSWER_BYTES,
  type ModelQuestion,
} from "../../pipeline/model-client.ts";
import { wrappedReply } from "../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../helpers/fake-upstream-hooks.ts";

const fake = useFakeUpstream();

const NOW = Date.UTC(2026, 10, 21, 6, 0, 0);

/** A client whose sleeps are recorded, not slept, and whose jitter is fixed at the middle. */
function client(extra: Partial<HttpClientOptions> = {}) {
  const waits: number[] = [];
  const http = createHttpClient({
    userAgent: "Research-Picks/test (mailto:ops@example.org)",
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    now: () => NOW,
    ...extra,
  });
  return { http, waits };
}

const S2_429 = {
  status: 429,
  headers: { "content-type": "application/json" },
  body: '{"message":"Too Many Requests"}',
};
const OK = wrappedReply("semantic-scholar/paper-lookup-arxiv-doi.json");

describe("the HTTP client", () => {
  it("honours Retry-After in seconds on a 429, then returns the answer", async () => {
    fake.route("GET", "/a", { ...S2_429, headers: { "retry-after": "2" } }, OK);
    const { http, waits } = client();
    const response = await http.send({ url: `${fake.url}/a`, upstream: "s2" });
    expect(JSON.parse(response.text).citationCount).toBe(111);
    expect(response.attempts).toBe(2);
    expect(waits).toEqual([2000]);
    expect(http.counts()).toMatchObject({ requests: 2, retries: 1, failures: 0, backoff_wait_ms: 2000 });
    expect(http.counts().by_upstream.s2).toEqual({ requests: 2, retries: 1, failures: 0 });
    await http.close();
  });

  it("honours Retry-After given as an HTTP date", async () => {
    fake.route(
      "GET",
      "/b",
      { status: 503, headers: { "retry-after": new Date(NOW + 5000).toUTCString() } },
      OK,
    );
    const { http, waits } = client();
    await http.send({ url: `${fake.url}/b` });
    expect(waits).toEqual([5000]);
    await http.close();
  });

  it("backs off exponentially with jitter on a 429 without Retry-After (Semantic Scholar sends none)", async () => {
    fake.route("GET", "/c", S2_429, S2_429, OK);
    const { http, waits } = client({ backoffBaseMs: 1000 });
    await http.send({ url: `${fake.url}/c` });
    // ceiling 1000 then 2000; with jitter 0.5: half the ceiling plus a quarter of it.
    expect(waits).toEqual([750, 1500]);
    await http.close();
  });

  it("gives up on a 503 after the bounded retries, with the status and the attempts in the error", async () => {
    fake.route("GET", "/d", { status: 503, body: "Service Unavailable" });
    const { http, waits } = client({ retries: 3 });
    const failure = await http
      .send({ url: `${fake.url}/d?api_key=secret`, upstream: "arxiv" })
      .catch((e) => e);
    expect(failure).toBeInstanceOf(HttpError);
    expect(failure).toMatchObject({ kind: "status", status: 503, attempts: 4, upstream: "arxiv" });
    expect(failure.message).toContain("HTTP 503 (Service Unavailable)");
    expect(failure.message).not.toContain("secret");
    expect(fake.seen("/d")).toHaveLength(4);
    expect(waits).toEqual([750, 1500, 3000]);
    expect(http.counts()).toMatchObject({ requests: 4, retries: 3, failures: 1 });
    await http.close();
  });

  it("opens an upstream's circuit after consecutive failures: calls fail at once, then one probe", async () => {
    fake.route("GET", "/down", { status: 503, body: "down" });
    fake.route("GET", "/other", OK);
    let now = NOW;
    const { http, waits } = client({
      retries: 3,
      now: () => now,
      circuit: { failureThreshold: 5, coolDownMs: 30_000 },
    });
    const first = await http.send({ url: `${fake.url}/down`, upstream: "llm" }).catch((e) => e);
    // One call alone is retried in full: four attempts stay under the threshold of five.
    expect(first).toMatchObject({ kind: "status", attempts: 4 });
    expect(http.circuits()).toEqual({});
    const second = await http.send({ url: `${fake.url}/down`, upstream: "llm" }).catch((e) => e);
    expect(second).toMatchObject({ kind: "status", attempts: 1 });
    expect(second.message).toContain("its circuit is now open");
    expect(http.circuits()).toEqual({ llm: "open" });
    const refused = await http.send({ url: `${fake.url}/down`, upstream: "llm" }).catch((e) => e);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ kind: "open", attempts: 0, upstream: "llm" });
    expect(fake.seen("/down")).toHaveLength(5);
    expect(waits).toEqual([750, 1500, 3000]);
    // Other upstreams are not affected.
    expect((await http.send({ url: `${fake.url}/other`, upstream: "s2" })).status).toBe(200);
    // After the cool-down, one probe; it fails, so the circuit opens for another cool-down.
    now += 30_000;
    const probe = await http.send({ url: `${fake.url}/down`, upstream: "llm" }).catch((e) => e);
    expect(probe).toMatchObject({ kind: "status", attempts: 1 });
    expect(fake.seen("/down")).toHaveLength(6);
    expect((await http.send({ url: `${fake.url}/down`, upstream: "llm" }).catch((e) => e)).kind).toBe("open");
    // The next probe is answered: closed again.
    fake.route("GET", "/down", OK);
    now += 30_000;
    expect((await http.send({ url: `${fake.url}/down`, upstream: "llm" })).status).toBe(200);
    expect(http.circuits()).toEqual({});
    expect(http.counts().by_upstream.llm).toEqual({
      requests: 7,
      retries: 3,
      failures: 5,
      circuit: "closed",
      circuit_opened: 2,
      short_circuited: 2,
    });
    await http.close();
  });

  it("lets only one probe through of calls made at once after the cool-down", async () => {
    fake.route("GET", "/probe", { hang: true });
    let now = NOW;
    const { http } = client({
      retries: 0,
      timeoutMs: 100,
      now: () => now,
      circuit: { failureThreshold: 1, coolDownMs: 1_000 },
    });
    await http.send({ url: `${fake.url}/probe`, upstream: "llm" }).catch(() => {});
    now += 1_000;
    const calls = await Promise.all(
      Array.from({ length: 5 }, () =>
        http.send({ url: `${fake.url}/probe`, upstream: "llm" }).catch((e) => e),
      ),
    );
    expect(calls.map((call) => call.kind).sort()).toEqual(["open", "open", "open", "open", "timeout"]);
    expect(fake.seen("/probe")).toHaveLength(2);
    await http.close();
  });

  it("fails at once when Retry-After asks for longer than the cap", async () => {
    fake.route("GET", "/e", { status: 429, headers: { "retry-after": "3600" } });
    const { http, waits } = client({ retryAfterMaxMs: 60_000 });
    const failure = await http.send({ url: `${fake.url}/e` }).catch((e) => e);
    expect(failure.message).toContain("Retry-After asks for 3600 s, more than the 60 s this client waits");
    expect(failure.attempts).toBe(1);
    expect(waits).toEqual([]);
    await http.close();
  });

  it("times out an upstream that never answers, retries, then fails with kind timeout", async () => {
    fake.route("GET", "/f", { hang: true });
    const { http } = client({ timeoutMs: 150, retries: 1 });
    const started = performance.now();
    const failure = await http.send({ url: `${fake.url}/f` }).catch((e) => e);
    expect(failure).toMatchObject({ kind: "timeout", attempts: 2 });
    expect(failure.message).toContain("no complete answer within 150 ms");
    expect(performance.now() - started).toBeLessThan(2000);
    await http.close();
  });

  it("retries a body cut short by a dropped connection", async () => {
    const full = OK.body as string;
    fake.route("GET", "/g", { ...OK, truncateAt: 100 }, OK);
    const { http } = client();
    const response = await http.send({ url: `${fake.url}/g` });
    expect(response.text).toBe(full);
    expect(response.attempts).toBe(2);
    expect(http.counts().retries).toBe(1);
    await http.close();
  });

  it("does not retry a 404 or an answer over the size limit", async () => {
    fake.route("GET", "/h", { status: 404, body: "nope" });
    fake.route("GET", "/i", OK);
    const { http } = client({ maxBodyBytes: 100 });
    await expect(http.send({ url: `${fake.url}/h` })).rejects.toMatchObject({ kind: "status", attempts: 1 });
    await expect(http.send({ url: `${fake.url}/i` })).rejects.toMatchObject({
      kind: "too-large",
      attempts: 1,
    });
    await http.close();
  });

  it("keeps an upstream's requests one at a time and spaced, and sends the User-Agent", async () => {
    fake.route("GET", "/j", OK);
    const http = createHttpClient({
      userAgent: userAgent("Research-Picks", "0.1.0", "ops@example.org"),
      upstreams: { arxiv: { concurrency: 1, minIntervalMs: 80 } },
    });
    await Promise.all([1, 2, 3].map(() => http.send({ url: `${fake.url}/j`, upstream: "arxiv" })));
    const seen = fake.seen("/j");
    expect(seen.map((request) => request.headers["user-agent"])).toEqual(
      Array(3).fill("Research-Picks/0.1.0 (mailto:ops@example.org)"),
    );
    for (let i = 1; i < seen.length; i++) {
      expect((seen[i]?.at ?? 0) - (seen[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(75);
    }
    expect(http.counts().politeness_wait_ms).toBeGreaterThanOrEqual(150);
    await http.close();
  });
});

const COMPLETIONS = "/v1/chat/completions";
const Verdict = z.strictObject({ verdict: z.enum(["yes", "no"]) });
const QUESTION: ModelQuestion<z.infer<typeof Verdict>> = {
  messages: [
    { role: "system", content: "Answer yes or no." },
    { role: "user", content: "Is this a test?" },
  ],
  responseFormat: { type: "json_schema", json_schema: { name: "verdict", strict: true, schema: {} } },
  answer: Verdict,
  temperature: 0,
};
/** A chat-completions envelope; `content` undefined leaves the message without one. */
const envelope = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ choices: [{ index: 0, finish_reason: "stop", message }], ...extra }),
});
const USAGE = { usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 } };
const NO_USAGE = { promptTokens: 0, completionTokens: 0 };

function modelClient(extra: Partial<HttpClientOptions> = {}) {
  const { http, waits } = client({ retries: 1, backoffBaseMs: 10, ...extra });
  const model = createModelClient({
    client: http,
    baseUrl: `${fake.url}/v1/`,
    model: "small",
    apiKey: "sk-test",
    timeoutMs: 150,
  });
  return { http, model, waits };
}

describe("the model client", () => {
  it("asks one JSON-schema question and answers the validated object with the tokens billed", async () => {
    fake.route("POST", COMPLETIONS, envelope({ content: '```json\n{"verdict":"yes"}\n```' }, USAGE));
    const { http, model } = modelClient();
    expect(await model.ask(QUESTION)).toEqual({
      ok: true,
      answer: { verdict: "yes" },
      usage: { promptTokens: 120, completionTokens: 8 },
    });
    const [seen] = fake.seen(COMPLETIONS);
    expect(seen?.headers.authorization).toBe("Bearer sk-test");
    expect(JSON.parse(seen?.body ?? "{}")).toEqual({
      model: "small",
      temperature: 0,
      messages: QUESTION.messages,
      response_format: QUESTION.responseFormat,
    });
    expect(http.counts().by_upstream.llm?.requests).toBe(1);
    await http.close();
  });

  it.each([
    [
      "a body that is not JSON",
      { body: "<html>gateway</html>" },
      "the model endpoint answered with a body that is not JSON",
    ],
    [
      "no choices",
      { body: '{"choices":[]}' },
      "the model endpoint's answer has no choices[0].message.content string",
    ],
    ["a refusal", envelope({ content: null, refusal: "I can't\nhelp." }), "the model refused: I can't help."],
    [
      "an answer cut off",
      { body: JSON.stringify({ choices: [{ finish_reason: "length", message: { content: '{"verd' } }] }) },
      "the model's answer was cut off (finish_reason: length)",
    ],
    ["content that is not JSON", envelope({ content: "yes" }), "the model's answer is not valid JSON ("],
    [
      "content off the schema",
      envelope({ content: '{"verdict":"maybe"}' }),
      "the model's answer does not match the expected schema (verdict: ",
    ],
  ])("calls %s an invalid answer", async (_name, reply, problem) => {
    fake.route("POST", COMPLETIONS, reply);
    const { http, model } = modelClient();
    const result = await model.ask(QUESTION);
    expect(result).toMatchObject({ ok: false, kind: "invalid", usage: NO_USAGE });
    expect(result.ok ? "" : result.problem).toContain(problem);
    await http.close();
  });

  it("counts the tokens of an answer it cannot use: the endpoint billed them", async () => {
    fake.route("POST", COMPLETIONS, envelope({ content: "I think so." }, USAGE));
    const { http, model } = modelClient();
    expect(await model.ask(QUESTION)).toMatchObject({
      ok: false,
      kind: "invalid",
      usage: { promptTokens: 120, completionTokens: 8 },
    });
    await http.close();
  });

  it("retries as its HTTP client does, then says unavailable with what the endpoint answered", async () => {
    fake.route("POST", COMPLETIONS, { status: 503, body: '{"error":"overloaded"}' });
    const { http, model, waits } = modelClient();
    const result = await model.ask(QUESTION);
    expect(result).toMatchObject({ ok: false, kind: "unavailable", usage: NO_USAGE });
    expect(result.ok ? "" : result.problem).toMatch(
      /^the model request failed: llm: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed after 2 attempts: HTTP 503 \(\{"error":"overloaded"\}\)$/,
    );
    expect(waits).toHaveLength(1);
    await http.close();
  });

  it("says timeout when no answer comes within its limit", async () => {
    fake.route("POST", COMPLETIONS, { hang: true });
    const { http, model } = modelClient({ retries: 0 });
    const result = await model.ask(QUESTION);
    expect(result).toMatchObject({ ok: false, kind: "timeout" });
    expect(result.ok ? "" : result.problem).toContain("no complete answer within 150 ms");
    await http.close();
  });

  it("reads no answer larger than MAX_MODEL_ANSWER_BYTES, whatever its HTTP client allows", async () => {
    const content = JSON.stringify({ verdict: "yes", padding: "x".repeat(MAX_MODEL_ANSWER_BYTES) });
    fake.route("POST", COMPLETIONS, envelope({ content }));
    const { http, model } = modelClient();
    const result = await model.ask(QUESTION);
    expect(result).toMatchObject({ ok: false, kind: "invalid" });
    expect(result.ok ? "" : result.problem).toContain(
      `the answer is larger than ${MAX_MODEL_ANSWER_BYTES} bytes`,
    );
    expect(fake.seen(COMPLETIONS)).toHaveLength(1);
    await http.close();
  });
});

describe("retry rules, Retry-After and the User-Agent", () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [501, false],
    [503, true],
    [400, false],
    [404, false],
  ])("status %i is retried: %s", (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });

  it.each([
    [1, 0, 500],
    [1, 0.999, 1000],
    [3, 0.5, 3000],
    [10, 0, 15_000],
  ])("retry %i with jitter %d waits %i ms (base 1 s, cap 30 s)", (retry, random, expected) => {
    expect(backoffDelay(retry, 1000, 30_000, random)).toBe(expected);
  });

  it.each([
    ["7", 7000],
    [" 0 ", 0],
    [new Date(NOW + 3000).toUTCString(), 3000],
    [new Date(NOW - 3000).toUTCString(), 0],
    ["soon", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("Retry-After %j waits %j ms", (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each([
    ["ops@example.org", "Research-Picks/0.1.0 (mailto:ops@example.org)"],
    ["https://example.org/contact", "Research-Picks/0.1.0 (https://example.org/contact)"],
    [undefined, "Research-Picks/0.1.0 (no contact configured)"],
  ])("contact %j gives %j", (contact, expected) => {
    expect(userAgent("Research-Picks", "0.1.0", contact)).toBe(expected);
  });
});
