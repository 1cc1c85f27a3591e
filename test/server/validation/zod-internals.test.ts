import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { $ZodType } from "zod/v4/core";
import { checkDef, defOf } from "../../../server/validation/scalar-plans.ts";

// The validation layer reads zod's internal definitions (`schema._zod.def` and each check's
// `_zod.def`) to write pydantic's errors. zod does not promise them, so package.json pins zod to an
// exact version and this test holds every field the layer reads: after an upgrade it fails here,
// naming the field that moved, instead of the 422s silently changing.

const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>;
};
const installed = (createRequire(import.meta.url)("zod/package.json") as { version: string }).version;

const checksOf = (schema: $ZodType) =>
  (defOf(schema).checks ?? []).map((check) => {
    const { check: kind, minimum, maximum, length, value, inclusive, format, pattern, tx } = checkDef(check);
    return {
      kind,
      minimum,
      maximum,
      length,
      value,
      inclusive,
      format,
      pattern: pattern?.source,
      tx: typeof tx,
    };
  });

const only = <T extends object>(value: T) =>
  Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined && field !== "undefined"),
  );

describe("the zod internals the validation layer reads", () => {
  it("are those of the exact zod version package.json pins", () => {
    expect(manifest.dependencies.zod).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(manifest.dependencies.zod);
  });

  it("string checks: lengths, pattern, overwrite", () => {
    const schema = z.string().min(3).max(5).length(4).regex(/a/).trim();
    expect(defOf(schema).type).toBe("string");
    expect(checksOf(schema).map(only)).toEqual([
      { kind: "min_length", minimum: 3 },
      { kind: "max_length", maximum: 5 },
      { kind: "length_equals", length: 4 },
      { kind: "string_format", format: "regex", pattern: "a" },
      { kind: "overwrite", tx: "function" },
    ]);
    expect(checksOf(z.string().email()).map(only)).toMatchObject([
      { kind: "string_format", format: "email" },
    ]);
  });

  it("number checks: integer, bounds with inclusiveness, multiple of", () => {
    const schema = z.number().int().gt(1).lte(5).multipleOf(2);
    expect(defOf(schema).type).toBe("number");
    expect(checksOf(schema).map(only)).toEqual([
      { kind: "number_format", format: "safeint" },
      { kind: "greater_than", value: 1, inclusive: false },
      { kind: "less_than", value: 5, inclusive: true },
      { kind: "multiple_of", value: 2 },
    ]);
    expect(checksOf(z.number().gte(0).lt(9)).map(only)).toEqual([
      { kind: "greater_than", value: 0, inclusive: true },
      { kind: "less_than", value: 9, inclusive: false },
    ]);
  });

  it("containers and wrappers: the fields that lead to inner schemas", () => {
    const element = z.string();
    const array = z.array(element).min(1).max(3);
    expect(defOf(array)).toMatchObject({ type: "array", element });
    expect(checksOf(array).map(only)).toEqual([
      { kind: "min_length", minimum: 1 },
      { kind: "max_length", maximum: 3 },
    ]);
    const shape = { a: z.string() };
    expect(defOf(z.object(shape))).toMatchObject({ type: "object", shape });
    expect(defOf(defOf(z.strictObject(shape)).catchall as $ZodType).type).toBe("never");
    expect(defOf(z.enum(["a", "b"]))).toMatchObject({ type: "enum", entries: { a: "a", b: "b" } });
    expect(defOf(z.literal("x"))).toMatchObject({ type: "literal", values: ["x"] });
    const options = [z.string(), z.number()];
    expect(defOf(z.union(options))).toMatchObject({ type: "union", options });
    expect(defOf(element.optional())).toMatchObject({ type: "optional", innerType: element });
    expect(defOf(element.nullable())).toMatchObject({ type: "nullable", innerType: element });
    expect(defOf(element.default("a"))).toMatchObject({
      type: "default",
      innerType: element,
      defaultValue: "a",
    });
    expect(defOf(element.prefault("a")).type).toBe("prefault");
    const out = z.string();
    expect(defOf(element.pipe(out))).toMatchObject({ type: "pipe", in: element, out });
    expect(typeof defOf(z.lazy(() => element)).getter).toBe("function");
    const transform = (value: string) => value.length;
    const transformed = element.transform(transform);
    expect(defOf(transformed)).toMatchObject({ type: "pipe", in: element });
    expect(defOf(defOf(transformed).out as $ZodType)).toMatchObject({ type: "transform", transform });
    expect(["boolean", "null", "any", "unknown"].map((type) => defOf(z[type as "boolean"]()).type)).toEqual([
      "boolean",
      "null",
      "any",
      "unknown",
    ]);
  });
});
