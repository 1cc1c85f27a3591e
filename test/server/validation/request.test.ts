import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validationErrorBody } from "../../../server/validation/errors.ts";
import {
  DEFAULT_MAX_BODY_BYTES,
  isJsonContentType,
  parseJsonBody,
} from "../../../server/validation/json-body.ts";
import {
  validateBody,
  validateHeaders,
  validatePath,
  validateQuery,
  validateRequest,
} from "../../../server/validation/request.ts";

type BodyInput = RequestInit["body"];

const Key = z.object({ email: z.string().min(3), note: z.string().optional() });

function post(body: BodyInput, contentType: string | null = "application/json", url = "http://test/v1/keys") {
  const headers = new Headers();
  if (contentType !== null) headers.set("content-type", contentType);
  return new Request(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function bodyAnswer(request: Request, schema: z.ZodType = Key): Promise<string> {
  const parsed = await parseJsonBody(request);
  if (!parsed.ok) return `${parsed.status} ${parsed.body}`;
  const result = validateBody(schema, parsed.value);
  return result.ok ? `ok ${JSON.stringify(result.value)}` : `422 ${validationErrorBody(result.issues)}`;
}

const NOT_PARSED = (text: string) =>
  `422 {"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":${JSON.stringify(text)}}]}`;

describe("content types (FastAPI strict_content_type, the 0.142 default)", () => {
  const body = '{"email":"abc"}';
  const cases: [string | null, boolean][] = [
    ["application/json", true],
    ["application/json; charset=utf-8", true],
    ["Application/JSON", true],
    [" application/json ;charset=latin-1", true],
    ["application/vnd.api+json", true],
    ["application/merge-patch+json; x=y", true],
    ["text/plain", false],
    ["application/x-www-form-urlencoded", false],
    ["text/json", false],
    ["application/jsonp", false],
    ["application/json/x", false],
    ["json", false],
    ["", false],
    [null, false],
  ];
  it.each(cases)("%j parsed: %s", async (contentType, parsed) => {
    expect(isJsonContentType(contentType)).toBe(parsed);
    expect(await bodyAnswer(post(body, contentType))).toBe(parsed ? 'ok {"email":"abc"}' : NOT_PARSED(body));
  });
});

describe("body edge cases", () => {
  const cases: [string, BodyInput, string][] = [
    [
      "no body",
      null,
      '422 {"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}',
    ],
    [
      "empty body",
      "",
      '422 {"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}',
    ],
    [
      "literal null",
      " null ",
      '422 {"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}',
    ],
    [
      "invalid JSON",
      '{"email":}',
      '422 {"detail":[{"type":"json_invalid","loc":["body",9],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}',
    ],
    [
      "trailing comma, as Python 3.13+ words it",
      '{"email":"abc",}',
      '422 {"detail":[{"type":"json_invalid","loc":["body",14],"msg":"JSON decode error","input":{},"ctx":{"error":"Illegal trailing comma before end of object"}}]}',
    ],
    [
      "invalid escape",
      '{"email":"a\\qb"}',
      '422 {"detail":[{"type":"json_invalid","loc":["body",11],"msg":"JSON decode error","input":{},"ctx":{"error":"Invalid \\\\escape"}}]}',
    ],
    [
      "invalid UTF-8",
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
      '400 {"detail":"There was an error parsing the body"}',
    ],
    [
      "nesting past Python's recursion limit",
      "[".repeat(5000),
      '400 {"detail":"There was an error parsing the body"}',
    ],
    ["a JSON array", '["abc"]', NOT_PARSED("").replace('"input":""', '"input":["abc"]')],
    ["NaN is JSON to Python", '{"email":"abc","x":NaN}', 'ok {"email":"abc"}'],
  ];
  it.each(cases)("%s", async (_name, body, expected) => {
    expect(await bodyAnswer(post(body))).toBe(expected);
  });

  it("an optional body may be absent", async () => {
    expect(await bodyAnswer(post(null), Key.optional())).toBe("ok undefined");
  });
});

describe("size limit", () => {
  it("refuses a declared Content-Length over the limit without reading", async () => {
    const request = new Request("http://test/", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(DEFAULT_MAX_BODY_BYTES + 1) },
      body: "{}",
    });
    expect(await parseJsonBody(request)).toEqual({
      ok: false,
      status: 413,
      body: JSON.stringify({
        detail: `Request body too large: this endpoint takes at most ${DEFAULT_MAX_BODY_BYTES} bytes`,
      }),
    });
    expect(request.bodyUsed).toBe(false);
  });

  it("refuses a body that never ends once it passes the limit", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let produced = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const result = await parseJsonBody(post(endless), { maxBytes: 1024 * 1024 });
    expect(result).toMatchObject({ ok: false, status: 413 });
    expect(produced).toBeLessThanOrEqual(1024 * 1024 + 4 * chunk.byteLength);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(true);
  });

  it("accepts a body of exactly the limit", async () => {
    const body = `"${"x".repeat(98)}"`;
    expect(await parseJsonBody(post(body), { maxBytes: 100 })).toMatchObject({
      ok: true,
      value: "x".repeat(98),
    });
    expect(await parseJsonBody(post(`${body} `), { maxBytes: 100 })).toMatchObject({ status: 413 });
  });
});

const Papers = z.object({
  limit: z.int().min(1).max(100).default(20),
  axis: z.enum(["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"]).optional(),
  radius_km: z.number().gt(0).optional(),
  tag: z.array(z.string()).optional(),
  ids: z.array(z.int()).default([]),
  verbose: z.boolean().default(false),
});

function queryAnswer(query: string): string {
  const result = validateQuery(Papers, new URLSearchParams(query));
  return result.ok ? `ok ${JSON.stringify(result.value)}` : validationErrorBody(result.issues);
}

describe("query parameters", () => {
  const cases: [string, string][] = [
    ["", 'ok {"limit":20,"ids":[],"verbose":false}'],
    [
      "limit=abc",
      '{"detail":[{"type":"int_parsing","loc":["query","limit"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"abc"}]}',
    ],
    [
      "limit=101",
      '{"detail":[{"type":"less_than_equal","loc":["query","limit"],"msg":"Input should be less than or equal to 100","input":"101","ctx":{"le":100}}]}',
    ],
    [
      "limit=0",
      '{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1}}]}',
    ],
    // Recorded from a FastAPI app: radius_km: float = Query(gt=0), GET ?radius_km=0.
    [
      "radius_km=0",
      '{"detail":[{"type":"greater_than","loc":["query","radius_km"],"msg":"Input should be greater than 0","input":"0","ctx":{"gt":0.0}}]}',
    ],
    ["limit=5&limit=abc", '"input":"abc"'],
    ["limit=abc&limit=5", 'ok {"limit":5,'],
    ["tag=a&tag=b&verbose=yes", '"tag":["a","b"],"ids":[],"verbose":true}'],
    ["ids=1&ids=x", '"loc":["query","ids",1]'],
    ["axis=A10", `"msg":"Input should be 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8' or 'A9'"`],
    ["limit=", '"input":""'],
    ["limit=+1_0", 'ok {"limit":10,'],
  ];
  it.each(cases)("?%s", (query, expected) => {
    expect(queryAnswer(query)).toContain(expected);
  });

  it("a missing required parameter reports input null", () => {
    const result = validateQuery(z.object({ q: z.string() }), new URLSearchParams("other=1"));
    expect(result.ok ? "ok" : validationErrorBody(result.issues)).toBe(
      '{"detail":[{"type":"missing","loc":["query","q"],"msg":"Field required","input":null}]}',
    );
  });
});

describe("path and header parameters", () => {
  const ArxivPath = z.object({
    arxiv_id: z.string().regex(/^(\d{4}\.\d{4,5}|[a-z]+(-[a-z]+)*(\.[A-Z]{2})?\/\d{7})(v\d+)?$/),
  });

  it("path parameters carry loc path", () => {
    expect(validatePath(ArxivPath, { arxiv_id: "cs/0112017" })).toEqual({
      ok: true,
      value: { arxiv_id: "cs/0112017" },
    });
    const result = validatePath(ArxivPath, { arxiv_id: "12345" });
    expect(result.ok ? "ok" : validationErrorBody(result.issues)).toBe(
      `{"detail":[{"type":"string_pattern_mismatch","loc":["path","arxiv_id"],"msg":"String should match pattern '^(\\\\d{4}\\\\.\\\\d{4,5}|[a-z]+(-[a-z]+)*(\\\\.[A-Z]{2})?/\\\\d{7})(v\\\\d+)?$'","input":"12345","ctx":{"pattern":"^(\\\\d{4}\\\\.\\\\d{4,5}|[a-z]+(-[a-z]+)*(\\\\.[A-Z]{2})?/\\\\d{7})(v\\\\d+)?$"}}]}`,
    );
  });

  it("path parameters are read as own properties", () => {
    const result = validatePath(z.object({ constructor: z.string() }), {});
    expect(result.ok).toBe(false);
  });

  it("header names turn underscores into hyphens, in the lookup and the loc", () => {
    const Auth = z.object({ x_api_key: z.string().min(10) });
    expect(validateHeaders(Auth, new Headers({ "X-API-Key": "rp_labs_0123456789" }))).toEqual({
      ok: true,
      value: { x_api_key: "rp_labs_0123456789" },
    });
    const result = validateHeaders(Auth, new Headers());
    expect(result.ok ? "ok" : validationErrorBody(result.issues)).toBe(
      '{"detail":[{"type":"missing","loc":["header","x-api-key"],"msg":"Field required","input":null}]}',
    );
  });
});

describe("validateRequest", () => {
  const schemas = {
    path: z.object({ id: z.int() }),
    query: z.object({ limit: z.int().max(100) }),
    headers: z.object({ x_api_key: z.string() }),
    body: Key,
  };

  it("collects path, query, header and body issues in that order", async () => {
    const request = post('{"email":1}', "application/json", "http://test/v1/keys/x?limit=500");
    const result = await validateRequest(request, schemas, { params: { id: "x" } });
    if (result.ok) throw new Error("expected issues");
    const locs = JSON.parse(result.body).detail.map((issue: { loc: unknown }) => issue.loc);
    expect([result.status, locs]).toEqual([
      422,
      [
        ["path", "id"],
        ["query", "limit"],
        ["header", "x-api-key"],
        ["body", "email"],
      ],
    ]);
  });

  it("answers an unparsable body alone, as FastAPI reads the body first", async () => {
    const request = post("{", "application/json", "http://test/v1/keys/x?limit=500");
    const result = await validateRequest(request, schemas, { params: { id: "x" } });
    expect(result).toEqual({
      ok: false,
      status: 422,
      body: '{"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}',
    });
  });

  it("returns the validated parts", async () => {
    const request = post('{"email":"abc"}', "application/json", "http://test/v1/keys/7?limit=5");
    request.headers.set("x-api-key", "k");
    const result = await validateRequest(request, schemas, { params: { id: "7" } });
    expect(result).toEqual({
      ok: true,
      value: { path: { id: 7 }, query: { limit: 5 }, headers: { x_api_key: "k" }, body: { email: "abc" } },
    });
  });

  it("does not read the body when the route has none", async () => {
    const request = post("{", "application/json", "http://test/v1/papers?limit=5");
    const result = await validateRequest(request, { query: schemas.query });
    expect(result.ok).toBe(true);
    expect(request.bodyUsed).toBe(false);
  });
});
