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
import { PyFloat } from "./py-json.ts";
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

// String#isWellFormed (ES2024, in Node 20) is missing from the ES2023 library the project compiles with.
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

// pydantic-core's str validator: strip/lower first, then min, max and pattern; the first failure wins.
// Lengths count code points, as Python's len() does. A lone surrogate ("\ud800" in JSON) is a Python str
// that pydantic's constrained str refuses (its plain str passes it on, to fail later when encoded): refused
// here for every string, so none is stored or sent on.
export function checkString(plan: StringPlan, input: unknown): string | Rejected {
  if (typeof input !== "string") return new Rejected((loc) => stringType(loc, input));
  if (!isWellFormed(input)) return new Rejected((loc) => simpleIssue("string_unicode", loc, input));
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

// A number as Python holds it (py-value.ts): an int (a number, or a bigint past 2**53) or a float.
interface PyNumber {
  float: boolean;
  value: number | bigint;
}

function pyNumberOf(input: unknown): PyNumber | undefined {
  if (typeof input === "number") return { float: !Number.isInteger(input), value: input };
  if (typeof input === "bigint") return { float: false, value: input };
  if (input instanceof PyFloat) return { float: true, value: input.value };
  return undefined;
}

// float_as_int's range: strictly between i64::MIN and i64::MAX as f64, that is -2**63 and 2**63.
const I64_AS_FLOAT = 2 ** 63;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

// Floats use pydantic's tolerance of 1e-9 around the nearest multiple; Rust rounds halves away from zero.
function isMultiple(value: number | bigint, multipleOf: number, float: boolean): boolean {
  if (typeof value === "bigint") {
    if (Number.isInteger(multipleOf) && multipleOf !== 0) return value % BigInt(multipleOf) === 0n;
    return isMultiple(Number(value), multipleOf, float);
  }
  if (!float) return value % multipleOf === 0;
  const ratio = value / multipleOf;
  const rounded = Math.sign(ratio) * Math.round(Math.abs(ratio));
  return Math.abs(value - rounded * multipleOf) <= 1e-9;
}

function toNumber(plan: NumberPlan, input: unknown): PyNumber | Rejected {
  const number = pyNumberOf(input);
  if (number) return number;
  if (typeof input === "boolean") return { float: false, value: input ? 1 : 0 }; // bool is an int subclass
  if (typeof input !== "string")
    return new Rejected((loc) => simpleIssue(plan.int ? "int_type" : "float_type", loc, input));
  if (plan.int) {
    const parsed = strAsInt(input);
    return typeof parsed === "string"
      ? new Rejected((loc) => simpleIssue(parsed, loc, input))
      : { float: false, value: parsed };
  }
  const parsed = strAsFloat(input);
  return parsed === undefined
    ? new Rejected((loc) => simpleIssue("float_parsing", loc, input))
    : { float: true, value: parsed };
}

// The int or float a field of the plan's type makes of a number: pydantic's float_as_int for an int
// field, float(int) for a float field.
function fieldValue(plan: NumberPlan, number: PyNumber, input: unknown): number | bigint | Rejected {
  if (!number.float) {
    if (plan.int) return number.value;
    const value = Number(number.value);
    // An int past the double range: extract::<f64>() fails and pydantic reports float_type.
    return Number.isFinite(value) ? value : new Rejected((loc) => simpleIssue("float_type", loc, input));
  }
  const value = number.value as number;
  // zod numbers are finite: a float field with allow_inf_nan=False.
  if (!Number.isFinite(value)) return new Rejected((loc) => simpleIssue("finite_number", loc, input));
  if (!plan.int) return value;
  if (!Number.isInteger(value)) return new Rejected((loc) => simpleIssue("int_from_float", loc, input));
  if (!(value > -I64_AS_FLOAT && value < I64_AS_FLOAT))
    return new Rejected((loc) => simpleIssue("int_parsing_size", loc, input));
  return value;
}

/**
 * Bounds in pydantic-core's order: multiple_of, le, lt, ge, gt; the first violated one is reported.
 * Comparisons are exact for ints past 2**53; one that passes every bound (a count with no maximum, which
 * the caller lowers) is handed on as the nearest safe integer.
 */
export function checkNumber(plan: NumberPlan, input: unknown): number | Rejected {
  const number = toNumber(plan, input);
  if (number instanceof Rejected) return number;
  const value = fieldValue(plan, number, input);
  if (value instanceof Rejected) return value;
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
  if (typeof value === "bigint") return value > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  return value === 0 ? 0 : value;
}

// pydantic-core validate_bool: strings by word; ints within i64 and whole floats within float_as_int's
// range only as 0/1 (bool_parsing otherwise); anything else, a bigger int included, is bool_type.
export function checkBoolean(input: unknown): boolean | Rejected {
  if (typeof input === "boolean") return input;
  if (typeof input === "string") {
    return strAsBool(input) ?? new Rejected((loc) => simpleIssue("bool_parsing", loc, input));
  }
  const number = pyNumberOf(input);
  if (number) {
    const { float, value } = number;
    const asInt = float
      ? Number.isInteger(value) && (value as number) > -I64_AS_FLOAT && (value as number) < I64_AS_FLOAT
      : typeof value === "number"
        ? value >= -I64_AS_FLOAT && value < I64_AS_FLOAT
        : value >= I64_MIN && value <= I64_MAX;
    if (asInt) {
      if (value === 0 || value === 1) return value === 1;
      return new Rejected((loc) => simpleIssue("bool_parsing", loc, input));
    }
  }
  return new Rejected((loc) => simpleIssue("bool_type", loc, input));
}

function sameNumber(a: number, b: number | bigint): boolean {
  return typeof b === "number" ? a === b : Number.isInteger(a) && BigInt(a) === b;
}

// pydantic matches literals by Python equality, where True == 1 == 1.0 and False == 0.
export function checkChoice(plan: ChoicePlan, input: unknown): LiteralValue | Rejected {
  for (const value of plan.values) if (value === input) return value;
  const number = typeof input === "boolean" ? { value: Number(input) } : pyNumberOf(input);
  if (number) {
    for (const value of plan.values) {
      if (typeof value !== "number" && typeof value !== "boolean") continue;
      if (sameNumber(Number(value), number.value)) return value;
    }
  }
  return new Rejected((loc) => choiceIssue(plan.type, loc, input, plan.expected));
}
