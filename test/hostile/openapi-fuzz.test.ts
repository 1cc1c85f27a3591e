import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSnapshotCache, type SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor } from "../helpers/app-client.ts";
import { testContext } from "../helpers/context.ts";
import { publishSampleDays } from "../helpers/published.ts";

// Property tests driven by the OpenAPI document: random and malformed paths, queries, headers and
// bodies for every operation. `clientFor` checks each answer against the document (a documented
// status, a body of the documented shape), so a 500, an undocumented answer or a hang fails here.

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string }>;
  hasBody: boolean;
}

let snapshots: SnapshotCache;
let call: Call;
let operations: Operation[];

beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  const context = await testContext(snapshots);
  ({ call } = await clientFor("in-process", context));
  const document = (await (await call("/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, { parameters?: Operation["parameters"]; requestBody?: unknown }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ["get", "post", "head"].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        hasBody: operation.requestBody !== undefined,
      })),
  );
  expect(operations.length).toBeGreaterThan(20);
});
afterAll(() => snapshots.close());

/** Strings an attacker would try: control characters, encodings, traversal, huge numbers, emoji. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    "..%2f..%2fetc%2fpasswd",
    "%00",
    "%ZZ",
    "-1",
    "1e309",
    "99999999999999999999999",
    "0x10",
    "NaN",
    "A10",
    "__proto__",
    "constructor",
    "2026-02-30",
    "cs%2F0112017",
    "😀".repeat(30),
    "\u202e\u200b",
    "'; DROP TABLE picks;--",
  ),
);

const bodyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.constantFrom("__proto__", "constructor", "email", "label", "subject", "body", "url", "options"),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

const rawBody = fc.oneof(
  bodyValue.map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom("{", "[1,", '{"a":', "\u0000", "null", "true", '{"__proto__":{"polluted":1}}', "NaN"),
);

function fillPath(template: string, values: string[]): string {
  let index = 0;
  return template.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[index++] ?? "x"));
}

describe("hostile input on every documented operation", () => {
  it("answers every random request with a documented status and body, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(hostileString, { minLength: 2, maxLength: 2 }),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom("days", "axis", "limit", "min_score", "min_reg_fit", "api_key"),
              fc.string({ maxLength: 8 }),
            ),
            hostileString,
          ),
          { maxLength: 5 },
        ),
        rawBody,
        fc.constantFrom(
          "application/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/vnd.x+json; charset=utf-8",
          undefined,
        ),
        fc.oneof(fc.constant(undefined), hostileString, fc.constant(`rp_labs_${"A".repeat(36)}`)),
        fc.ipV4(),
        async (pick, pathValues, query, body, contentType, apiKey, ip) => {
          const operation = operations[pick % operations.length] as Operation;
          const search = new URLSearchParams(query).toString();
          const url = `${fillPath(operation.path, pathValues)}${search ? `?${search}` : ""}`;
          const headers: Record<string, string> = {};
          if (contentType) headers["content-type"] = contentType;
          if (apiKey !== undefined) headers["x-api-key"] = apiKey.replace(/[^\t\x20-\x7e]/g, "");
          const response = await call(url, {
            method: operation.method,
            headers,
            ip,
            ...(operation.method === "POST" ? { body } : {}),
          });
          expect(response.status).not.toBe(500);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("prototype keys in a body change nothing outside it", async () => {
    await call("/v1/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"__proto__":{"polluted":1},"email":"a@b.c","label":"x"}',
      ip: "203.0.113.9",
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses deeply nested JSON without overflowing the stack", async () => {
    // 32,000 levels is as deep as the 64 KiB the route reads can nest; deeper is over the cap.
    for (const [depth, statuses] of [
      [1_000, [400, 422]],
      [32_000, [400, 422]],
      [100_000, [413]],
    ] as const) {
      const body = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const response = await call("/v1/verify", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        ip: "203.0.113.10",
      });
      expect(statuses).toContain(response.status);
    }
  });

  it("answers a body over 1 MiB with 413 without reading it whole", async () => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 65_536;
        controller.enqueue(new Uint8Array(65_536).fill(0x20));
        if (sent > 64 * 1024 * 1024) controller.close();
      },
    });
    const response = await call("/v1/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: endless,
      duplex: "half",
      ip: "203.0.113.11",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  });

  it("answers invalid UTF-8 with 400 and a detail", async () => {
    const body = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const response = await call("/v1/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      ip: "203.0.113.12",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: "There was an error parsing the body" });
  });
});

describe("huge headers over a real port", () => {
  it("are refused by the HTTP layer with 431, and the server keeps answering", async () => {
    const context = await testContext(snapshots);
    const { url, close } = await clientFor("real port", context);
    const response = await fetch(`${url}/v1/me`, { headers: { "x-api-key": "A".repeat(64 * 1024) } });
    expect(response.status).toBe(431);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    await close();
  });
});
