// pydantic v2 error records as FastAPI 0.142 answers them: {"detail":[{type, loc, msg, input, ctx?}]}.
// Messages are pydantic-core's templates (src/errors/types.rs); FastAPI leaves out `url`.
import { PyFloat, pyJson, rustFloatDisplay } from "./py-json.ts";

export type LocItem = string | number;

export interface ValidationIssue {
  type: string;
  loc: LocItem[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Builds an issue with the key order FastAPI writes: type, loc, msg, input, ctx. */
export function makeIssue(
  type: string,
  loc: LocItem[],
  msg: string,
  input: unknown,
  ctx?: Record<string, unknown>,
): ValidationIssue {
  return ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };
}

/** The 422 body: compact JSON, as Starlette's JSONResponse writes it. */
export function validationErrorBody(issues: readonly ValidationIssue[]): string {
  return pyJson({ detail: issues });
}

/** A FastAPI HTTPException body: {"detail":"<message>"}. */
export function detailBody(message: string): string {
  return pyJson({ detail: message });
}

const plural = (n: number): string => (n === 1 ? "" : "s");

export const missing = (loc: LocItem[], input: unknown): ValidationIssue =>
  makeIssue("missing", loc, "Field required", input);

export const modelAttributesType = (loc: LocItem[], input: unknown): ValidationIssue =>
  makeIssue(
    "model_attributes_type",
    loc,
    "Input should be a valid dictionary or object to extract fields from",
    input,
  );

export const extraForbidden = (loc: LocItem[], input: unknown): ValidationIssue =>
  makeIssue("extra_forbidden", loc, "Extra inputs are not permitted", input);

export const stringType = (loc: LocItem[], input: unknown): ValidationIssue =>
  makeIssue("string_type", loc, "Input should be a valid string", input);

export const stringTooShort = (loc: LocItem[], input: unknown, min: number): ValidationIssue =>
  makeIssue("string_too_short", loc, `String should have at least ${min} character${plural(min)}`, input, {
    min_length: min,
  });

export const stringTooLong = (loc: LocItem[], input: unknown, max: number): ValidationIssue =>
  makeIssue("string_too_long", loc, `String should have at most ${max} character${plural(max)}`, input, {
    max_length: max,
  });

export const stringPatternMismatch = (loc: LocItem[], input: unknown, pattern: string): ValidationIssue =>
  makeIssue("string_pattern_mismatch", loc, `String should match pattern '${pattern}'`, input, { pattern });

const SIMPLE = {
  int_type: "Input should be a valid integer",
  int_parsing: "Input should be a valid integer, unable to parse string as an integer",
  int_from_float: "Input should be a valid integer, got a number with a fractional part",
  int_parsing_size: "Unable to parse input string as an integer, exceeded maximum size",
  float_type: "Input should be a valid number",
  float_parsing: "Input should be a valid number, unable to parse string as a number",
  finite_number: "Input should be a finite number",
  string_unicode: "Input should be a valid string, unable to parse raw data as a unicode string",
  bool_type: "Input should be a valid boolean",
  bool_parsing: "Input should be a valid boolean, unable to interpret input",
  list_type: "Input should be a valid list",
  none_required: "Input should be None",
} as const;

export type SimpleIssueType = keyof typeof SIMPLE;

/** Issues whose message has no placeholders: int_parsing, bool_type, list_type, ... */
export function simpleIssue(type: SimpleIssueType, loc: LocItem[], input: unknown): ValidationIssue {
  return makeIssue(type, loc, SIMPLE[type], input);
}

export type Bound = "gt" | "ge" | "lt" | "le" | "multiple_of";

const BOUND_TYPE: Record<Bound, [string, string]> = {
  gt: ["greater_than", "greater than"],
  ge: ["greater_than_equal", "greater than or equal to"],
  lt: ["less_than", "less than"],
  le: ["less_than_equal", "less than or equal to"],
  multiple_of: ["multiple_of", "a multiple of"],
};

/**
 * A violated numeric bound. Float fields carry float bounds: ctx {"ge":1.0}, message "... equal to 1".
 * @example boundIssue("le", ["query", "limit"], "101", 100, false) // less_than_equal, ctx {"le":100}
 */
export function boundIssue(bound: Bound, loc: LocItem[], input: unknown, value: number, float: boolean) {
  const [type, words] = BOUND_TYPE[bound];
  const shown = float ? rustFloatDisplay(value) : String(value);
  return makeIssue(type, loc, `Input should be ${words} ${shown}`, input, {
    [bound]: float ? new PyFloat(value) : value,
  });
}

export function listLength(kind: "too_short" | "too_long", loc: LocItem[], input: unknown, limit: number) {
  const actual = Array.isArray(input) ? input.length : 0;
  if (kind === "too_short") {
    const msg = `List should have at least ${limit} item${plural(limit)} after validation, not ${actual}`;
    return makeIssue(kind, loc, msg, input, { field_type: "List", min_length: limit, actual_length: actual });
  }
  const msg = `List should have at most ${limit} item${plural(limit)} after validation, not ${actual}`;
  return makeIssue(kind, loc, msg, input, { field_type: "List", max_length: limit, actual_length: actual });
}

/** `enum` for z.enum, `literal_error` for z.literal; `expected` is pydantic's "'A1', 'A2' or 'A3'". */
export const choiceIssue = (
  type: "enum" | "literal_error",
  loc: LocItem[],
  input: unknown,
  expected: string,
) => makeIssue(type, loc, `Input should be ${expected}`, input, { expected });

/** A failed refinement, like a pydantic validator raising ValueError; FastAPI encodes the exception as {}. */
export const valueError = (loc: LocItem[], input: unknown, message: string): ValidationIssue =>
  makeIssue("value_error", loc, `Value error, ${message}`, input, { error: {} });

/** FastAPI's own record for a body json.loads refused; `position` counts code points, as Python does. */
export const jsonInvalid = (position: number, reason: string): ValidationIssue =>
  makeIssue("json_invalid", ["body", position], "JSON decode error", {}, { error: reason });
