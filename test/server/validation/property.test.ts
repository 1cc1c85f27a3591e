import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validationErrorBody } from "../../../server/validation/errors.ts";
import { readExactJson } from "../../../server/validation/exact-json.ts";
import { parseJsonBody } from "../../../server/validation/json-body.ts";
import { pyJson } from "../../../server/validation/py-json.ts";
import { plainValue } from "../../../server/validation/py-value.ts";
import { scanPythonJson } from "../../../server/validation/python-json-scanner.ts";
import { validateBody } from "../../../server/validation/request.ts";

const Playground = z.object({
  email: z.string().min(3).max(320),
  options: z
    .object({
      redlist: z.array(z.string().max(100)).max(200).default([]),
      strict: z.boolean().default(false),
      axes: z.array(z.enum(["A1", "A2", "A3"])).optional(),
    })
    .optional(),
  limit: z.int().min(1).max(100).default(20),
  min_score: z.number().min(0).max(45).nullable().optional(),
  day: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((v) => !v.endsWith("-00"), "not a day")
    .optional(),
});

// Bodies that sometimes look like the schema, so deep branches are reached too.
const nearMiss = fc.record(
  {
    email: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    options: fc.oneof(
      fc.jsonValue(),
      fc.record(
        { redlist: fc.oneof(fc.array(fc.string()), fc.jsonValue()), strict: fc.jsonValue() },
        { requiredKeys: [] },
      ),
    ),
    limit: fc.oneof(fc.integer(), fc.double(), fc.string()),
    min_score: fc.jsonValue(),
    day: fc.oneof(fc.string(), fc.constant("2026-01-00")),
    ["__proto__"]: fc.jsonValue(),
    constructor: fc.jsonValue(),
  },
  { requiredKeys: [], noNullPrototype: true },
);

const body = fc.oneof(fc.jsonValue(), nearMiss);

describe("any JSON body", () => {
  it("validates to a value or to issues in FastAPI's shape, and never throws", () => {
    fc.assert(
      fc.property(body, (value) => {
        const result = validateBody(Playground, value);
        if (result.ok) return;
        expect(result.issues.length).toBeGreaterThan(0);
        const detail = JSON.parse(validationErrorBody(result.issues)).detail as Record<string, unknown>[];
        for (const issue of detail) {
          const keys = Object.keys(issue);
          expect(keys.slice(0, 4)).toEqual(["type", "loc", "msg", "input"]);
          expect(keys.length === 4 || keys[4] === "ctx").toBe(true);
          expect((issue.loc as unknown[])[0]).toBe("body");
        }
      }),
      { numRuns: 2000 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the Python JSON scanner", () => {
  it("agrees with JSON.parse on every document JSON.parse writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const result = scanPythonJson(text);
        expect(result.ok && plainValue(result.value)).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const result = scanPythonJson(text);
        let accepted = true;
        try {
          JSON.parse(text);
        } catch {
          accepted = false;
        }
        // Python accepts more (NaN, Infinity), never less.
        if (accepted) expect(result.ok).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("parseJsonBody", () => {
  it("answers arbitrary bytes with a value or a FastAPI error, never throwing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 64 }), fc.boolean(), async (bytes, json) => {
        const request = new Request("http://test/", {
          method: "POST",
          headers: json ? { "content-type": "application/json" } : {},
          body: bytes,
        });
        const result = await parseJsonBody(request);
        if (!result.ok) {
          expect([400, 413, 422]).toContain(result.status);
          expect(() => JSON.parse(result.body)).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("the exact reader", () => {
  it("gives the scanner's exact value for every document JSON.parse accepts", () => {
    const numbers = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.constantFrom("1.0", "-0.0", "1e2", "1E+16", "0.5e-7", "-0", "12345678901234567.0"),
    );
    const text = fc.letrec<{ doc: string }>((tie) => ({
      doc: fc.oneof(
        { depthSize: "small" },
        numbers,
        fc.string({ unit: "binary" }).map((s) => JSON.stringify(s)),
        fc.constantFrom("true", "false", "null", '"a\\"b\\\\"', '"\\ud800"', '"\\u00e9\\n"'),
        fc.array(tie("doc"), { maxLength: 4 }).map((items) => `[ ${items.join(" ,\n")} ]`),
        fc
          .array(fc.tuple(fc.oneof(fc.string(), fc.nat().map(String)), tie("doc")), { maxLength: 4 })
          .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)} :\t${v}`).join(",")}}`),
      ),
    })).doc;
    fc.assert(
      fc.property(text, (doc) => {
        JSON.parse(doc);
        const scanned = scanPythonJson(doc);
        expect(scanned.ok).toBe(true);
        expect(pyJson(readExactJson(doc))).toBe(pyJson(scanned.ok ? scanned.value : undefined));
      }),
      { numRuns: 2000 },
    );
  });
});
