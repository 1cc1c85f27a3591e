// pydantic's validators for single values: str, int/float, bool, Literal/Enum. Each returns the
// validated value, or a Rejected carrying the issue to report at the caller's location.
import {
  boundIssue,
  choiceIssue,
  type LocItem,
  simpleIssue,
  stringPatternMismatch,
  stringTooLong,
  stringTooShort,
  stringType,
  type ValidationIssue,
} from "./errors.ts";
import { strAsBool, strAsFloat, strAsInt } from "./lax.ts";
import type { ChoicePlan, NumberPlan, StringPlan } from "./plan-types.ts";
import type { LiteralValue } from "./py-repr.ts";

/** A refused value; only failures allocate, valid values are returned as they are. */
export class Rejected {
  readonly issue: (loc: LocItem[]) => ValidationIssue;

  constructor(issue: (loc: LocItem[]) => ValidationIssue) {
    this.issue = issue;
  }
}

function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

// pydantic-core's str validator: strip/lower first, then min, max and pattern; the first failure wins.
// Lengths count code points, as Python's len() does.
export function checkString(plan: StringPlan, input: unknown): string | Rejected {
  if (typeof input !== "string") return new Rejected((loc) => stringType(loc, input));
  let text = input;
  for (const rewrite of plan.rewrites) text = rewrite(text);
  const { min, max } = plan;
  // A string of n UTF-16 units has between n/2 and n code points: count only when that range
  // straddles a bound (a 10,000-unit body under a 10,000 maximum needs no counting).
  const undecided =
    (max !== undefined && text.length > max) || (min !== undefined && Math.ceil(text.length / 2) < min);
  if (undecided) {
    const length = codePointLength(text);
    if (min !== undefined && length < min) return new Rejected((loc) => stringTooShort(loc, input, min));
    if (max !== undefined && length > max) return new Rejected((loc) => stringTooLong(loc, input, max));
  }
  for (const pattern of plan.patterns) {
    pattern.regex.lastIndex = 0;
    if (!pattern.regex.test(text))
      return new Rejected((loc) => stringPatternMismatch(loc, input, pattern.source));
  }
  return text;
}

// Floats use pydantic's tolerance of 1e-9 around the nearest multiple; Rust rounds halves away from zero.
function isMultiple(value: number, multipleOf: number, float: boolean): boolean {
  if (!float) return value % multipleOf === 0;
  const ratio = value / multipleOf;
  const rounded = Math.sign(ratio) * Math.round(Math.abs(ratio));
  return Math.abs(value - rounded * multipleOf) <= 1e-9;
}

function toNumber(plan: NumberPlan, input: unknown): number | Rejected {
  if (typeof input === "number") return input;
  if (typeof input === "boolean") return input ? 1 : 0; // bool is an int subclass in Python
  if (typeof input !== "string")
    return new Rejected((loc) => simpleIssue(plan.int ? "int_type" : "float_type", loc, input));
  if (plan.int) {
    const parsed = strAsInt(input);
    return typeof parsed === "number" ? parsed : new Rejected((loc) => simpleIssue(parsed, loc, input));
  }
  const parsed = strAsFloat(input);
  return parsed ?? new Rejected((loc) => simpleIssue("float_parsing", loc, input));
}

// Bounds in pydantic-core's order: multiple_of, le, lt, ge, gt; the first violated one is reported.
export function checkNumber(plan: NumberPlan, input: unknown): number | Rejected {
  const value = toNumber(plan, input);
  if (value instanceof Rejected) return value;
  // zod numbers are finite: a float field with allow_inf_nan=False.
  if (!Number.isFinite(value)) return new Rejected((loc) => simpleIssue("finite_number", loc, input));
  if (plan.int && !Number.isInteger(value))
    return new Rejected((loc) => simpleIssue("int_from_float", loc, input));
  const float = !plan.int;
  const { multipleOf, le, lt, ge, gt } = plan;
  const bound = (kind: "multiple_of" | "le" | "lt" | "ge" | "gt", limit: number) =>
    new Rejected((loc) => boundIssue(kind, loc, input, limit, float));
  if (multipleOf !== undefined && !isMultiple(value, multipleOf, float))
    return bound("multiple_of", multipleOf);
  if (le !== undefined && !(value <= le)) return bound("le", le);
  if (lt !== undefined && !(value < lt)) return bound("lt", lt);
  if (ge !== undefined && !(value >= ge)) return bound("ge", ge);
  if (gt !== undefined && !(value > gt)) return bound("gt", gt);
  return value === 0 ? 0 : value;
}

// pydantic-core validate_bool: strings by word, ints and integral floats (within i64) only as 0/1.
export function checkBoolean(input: unknown): boolean | Rejected {
  if (typeof input === "boolean") return input;
  if (typeof input === "string") {
    return strAsBool(input) ?? new Rejected((loc) => simpleIssue("bool_parsing", loc, input));
  }
  if (typeof input === "number" && Number.isInteger(input) && Math.abs(input) < 2 ** 63) {
    if (input === 0 || input === 1) return input === 1;
    return new Rejected((loc) => simpleIssue("bool_parsing", loc, input));
  }
  return new Rejected((loc) => simpleIssue("bool_type", loc, input));
}

// pydantic matches literals by Python equality, where True == 1 and False == 0.
export function checkChoice(plan: ChoicePlan, input: unknown): LiteralValue | Rejected {
  for (const value of plan.values) if (value === input) return value;
  if (typeof input === "boolean" || typeof input === "number") {
    const numeric = Number(input);
    for (const value of plan.values) {
      if (typeof value !== typeof input && (typeof value === "number" || typeof value === "boolean")) {
        if (Number(value) === numeric) return value;
      }
    }
  }
  return new Rejected((loc) => choiceIssue(plan.type, loc, input, plan.expected));
}
