import { describe, expect, it } from "vitest";
import { checkAnswer } from "../../helpers/contract.ts";

// The contract check itself: answers the document does not describe must fail it, or the check on every
// HTTP test proves nothing.

const JSON_TYPE = { "content-type": "application/json" };
const answer = (status: number, body: unknown, headers: Record<string, string> = JSON_TYPE) =>
  new Response(body === null ? null : typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers,
  });

const HEALTH = {
  status: "ok",
  version: "0.1.0",
  latest_snapshot: null,
  store: { kind: "memory", reachable: true },
  snapshots: {
    kind: "bucket",
    origin: "s3://picks/prod",
    last_poll_at: "2026-11-28T06:00:00.000Z",
    manifest_newest_day: "2026-11-27",
    stale_seconds: null,
    problem: null,
    refused: [],
    publish: null,
  },
  skipped_days: [],
  circuits: {},
};
const RATE = { ...JSON_TYPE, "retry-after": "60", "ratelimit-policy": '"verify";q=20;w=3600' };

describe("the contract check", () => {
  it.each([
    ["GET", "/health", answer(200, HEALTH)],
    ["HEAD", "/health", answer(200, null)],
    ["GET", "/v1/daily/2026-11-20", answer(304, null, { etag: '"abc"', "cache-control": "no-cache" })],
    ["GET", "/v1/nowhere", answer(404, { detail: "Not Found" })],
    [
      "DELETE",
      "/health",
      answer(405, { detail: "Method Not Allowed" }, { ...JSON_TYPE, allow: "GET, HEAD" }),
    ],
    ["GET", "/assets/anything.css", answer(200, "body {}", { "content-type": "text/css" })],
    ["POST", "/v1/verify", answer(429, { detail: "later" }, { ...RATE, ratelimit: '"verify";r=0;t=60' })],
  ])("accepts %s %s answered as described", async (method, path, response) => {
    await expect(checkAnswer(method, path, response)).resolves.toBeUndefined();
  });

  it.each([
    [
      "a body missing a field",
      "GET",
      "/health",
      answer(200, { status: "ok" }),
      "must have required property",
    ],
    ["an extra field", "GET", "/health", answer(200, { ...HEALTH, extra: 1 }), "additional properties"],
    ["a status not described", "GET", "/health", answer(418, { detail: "teapot" }), "not among 200"],
    [
      "another media type",
      "GET",
      "/health",
      answer(200, "ok", { "content-type": "text/plain" }),
      "text/plain",
    ],
    ["a body that is not JSON", "GET", "/health", answer(200, "{oops", JSON_TYPE), "is not JSON"],
    ["a missing header", "POST", "/v1/verify", answer(429, { detail: "x" }, JSON_TYPE), "Retry-After"],
    [
      "a malformed header",
      "POST",
      "/v1/verify",
      answer(429, { detail: "x" }, { ...RATE, ratelimit: "plenty" }),
      "RateLimit: plenty",
    ],
    ["an unknown path not answered 404", "GET", "/v1/nowhere", answer(200, HEALTH), "expected 404"],
    ["a 404 with another body", "GET", "/v1/nowhere", answer(404, { detail: "Gone" }), "expected 404"],
    ["a method not taken answered 200", "POST", "/health", answer(200, HEALTH), "expected 405"],
    [
      "a 405 with the wrong Allow",
      "POST",
      "/health",
      answer(405, { detail: "Method Not Allowed" }, { ...JSON_TYPE, allow: "GET" }),
      "expected Allow: GET, HEAD",
    ],
    ["a 422 of another shape", "GET", "/v1/daily/2026-13-01", answer(422, { detail: [{ msg: "x" }] }), "loc"],
  ])("refuses %s", async (_what, method, path, response, why) => {
    await expect(checkAnswer(method, path, response)).rejects.toThrow(why);
  });
});
