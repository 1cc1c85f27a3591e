// Plans for strings and numbers: zod's checks folded into pydantic's constraints (min/max length,
// pattern, gt/ge/lt/le, multiple_of); the checks pydantic has no constraint for stay zod's to run.
import type { $ZodCheck, $ZodType } from "zod/v4/core";
import { $ZodUnknown } from "zod/v4/core";
import type { NumberPlan, StringPlan } from "./plan-types.ts";
import type { LiteralValue } from "./py-repr.ts";

// The subset of zod's definitions this module reads; every field is optional because `type` decides.
export interface Def {
  type: string;
  checks?: $ZodCheck<never>[];
  check?: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
  tx?: (value: string) => string;
  element?: $ZodType;
  shape?: Record<string, $ZodType>;
  catchall?: $ZodType;
  entries?: Record<string, string | number>;
  values?: LiteralValue[];
  options?: $ZodType[];
  innerType?: $ZodType;
  defaultValue?: unknown;
  in?: $ZodType;
  out?: $ZodType;
  getter?: () => $ZodType;
  transform?: (value: unknown, ctx: unknown) => unknown;
}

export const defOf = (schema: $ZodType): Def => schema._zod.def as unknown as Def;
export const checkDef = (check: $ZodCheck<never>): Def => check._zod.def as unknown as Def;

/** The checks zod alone can run, bundled into one schema applied after pydantic's checks passed. */
export function refinements(checks: $ZodCheck<never>[]): $ZodType | undefined {
  if (checks.length === 0) return undefined;
  return new $ZodUnknown({ type: "unknown", checks });
}

// RegExp#source escapes "/" as "\/"; pydantic reports the pattern as written, where "/" needs no escape.
function patternSource(regex: RegExp): string {
  let out = "";
  const source = regex.source;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === "\\" && i + 1 < source.length) {
      const next = source[i + 1] as string;
      out += next === "/" ? "/" : ch + next;
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

const minOf = (a: number | undefined, b: number) => (a === undefined ? b : Math.min(a, b));
const maxOf = (a: number | undefined, b: number) => (a === undefined ? b : Math.max(a, b));

/**
 * Folds a zod length check (min, max, exact) into a plan's bounds; false when `c` is another check.
 * Strings and lists share it: pydantic bounds both the same way.
 */
export function foldLengthCheck(plan: { min?: number; max?: number }, c: Def): boolean {
  if (c.check === "min_length" && c.minimum !== undefined) plan.min = maxOf(plan.min, c.minimum);
  else if (c.check === "max_length" && c.maximum !== undefined) plan.max = minOf(plan.max, c.maximum);
  else if (c.check === "length_equals" && c.length !== undefined) {
    plan.min = maxOf(plan.min, c.length);
    plan.max = minOf(plan.max, c.length);
  } else return false;
  return true;
}

export function compileString(schema: $ZodType, def: Def): StringPlan {
  const plan: StringPlan = { kind: "string", patterns: [], rewrites: [] };
  const extra: $ZodCheck<never>[] = [];
  // z.email(), z.uuid(), ... are string schemas that are their own format check.
  if (def.check === "string_format") extra.push(schema as unknown as $ZodCheck<never>);
  for (const check of def.checks ?? []) {
    const c = checkDef(check);
    if (foldLengthCheck(plan, c)) continue;
    if (c.check === "string_format" && c.format === "regex" && c.pattern) {
      plan.patterns.push({ regex: c.pattern, source: patternSource(c.pattern) });
    } else if (c.check === "overwrite" && c.tx) plan.rewrites.push(c.tx);
    else extra.push(check);
  }
  plan.extra = refinements(extra);
  return plan;
}

const INT_FORMATS: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};
const FLOAT_FORMATS: Record<string, [number, number]> = {
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

export function compileNumber(def: Def): NumberPlan {
  const plan: NumberPlan = { kind: "number", int: false };
  const extra: $ZodCheck<never>[] = [];
  let formatBounds: [number, number] | undefined;
  const applyFormat = (format: string | undefined) => {
    const intBounds = format === undefined ? undefined : INT_FORMATS[format];
    if (intBounds) plan.int = true;
    formatBounds = intBounds ?? (format === undefined ? undefined : FLOAT_FORMATS[format]) ?? formatBounds;
  };
  if (def.check === "number_format") applyFormat(def.format);
  for (const check of def.checks ?? []) {
    const c = checkDef(check);
    if (c.check === "number_format") applyFormat(c.format);
    else if (c.check === "greater_than" && c.value !== undefined) {
      if (c.inclusive) plan.ge = maxOf(plan.ge, c.value);
      else plan.gt = maxOf(plan.gt, c.value);
    } else if (c.check === "less_than" && c.value !== undefined) {
      if (c.inclusive) plan.le = minOf(plan.le, c.value);
      else plan.lt = minOf(plan.lt, c.value);
    } else if (c.check === "multiple_of" && c.value !== undefined) plan.multipleOf = c.value;
    else extra.push(check);
  }
  // A format's range applies only where the schema states no bound of its own on that side, so a
  // declared `ge 1` keeps its message; it keeps out-of-range integers from becoming imprecise doubles.
  if (formatBounds) {
    if (plan.ge === undefined && plan.gt === undefined) plan.ge = formatBounds[0];
    if (plan.le === undefined && plan.lt === undefined) plan.le = formatBounds[1];
  }
  plan.extra = refinements(extra);
  return plan;
}
