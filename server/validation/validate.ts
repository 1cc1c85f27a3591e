// Validates raw input against a zod 4 schema with pydantic v2 lax semantics (python mode, as FastAPI
// validates), collecting every issue in field order. Zod's own messages are not used except for
// refinements, which become pydantic's value_error.
import type { $ZodType, output } from "zod/v4/core";
import { safeParse } from "zod/v4/core";
import {
  extraForbidden,
  type LocItem,
  listLength,
  missing,
  modelAttributesType,
  simpleIssue,
  type ValidationIssue,
  valueError,
} from "./errors.ts";
import { planOf } from "./plan.ts";
import type { ArrayPlan, ObjectPlan, Plan } from "./plan-types.ts";
import { PyFloat } from "./py-json.ts";
import { plainValue, setOwn, valueAt } from "./py-value.ts";
import { checkBoolean, checkChoice, checkNumber, checkString, Rejected } from "./scalar-checks.ts";

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export interface ValidateOptions {
  /**
   * The input is JSON.parse's plain value (see python-json.ts): a whole number past 2**53 may have been
   * an int with more digits or a float, so a scalar meeting one fails without issues, for the caller to
   * validate the exact value instead.
   */
  approximate?: boolean;
}

const isUnsure = (input: unknown) =>
  typeof input === "number" && Number.isInteger(input) && !Number.isSafeInteger(input);

const FAIL: unique symbol = Symbol("validation failed");

type Dict = Map<string, unknown> | Record<string, unknown>;

// Own properties only: a body's "constructor" or "__proto__" key is data, never Object.prototype.
function read(source: Dict, key: string): unknown {
  if (source instanceof Map) return source.get(key);
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

/** One validation run: a shared location stack and the issues found so far. */
class Walker {
  readonly path: LocItem[];
  readonly issues: ValidationIssue[] = [];
  readonly approximate: boolean;
  unsure = false;

  constructor(loc: readonly LocItem[], options: ValidateOptions) {
    this.path = [...loc];
    this.approximate = options.approximate === true;
  }

  fail(issue: (loc: LocItem[]) => ValidationIssue): typeof FAIL {
    this.issues.push(issue(this.path.slice()));
    return FAIL;
  }

  at(key: LocItem, plan: Plan, input: unknown): unknown {
    this.path.push(key);
    const result = this.walk(plan, input);
    this.path.pop();
    return result;
  }

  // Scalars first run pydantic's checks, then any zod refinement on the validated value.
  scalar(value: unknown, plan: { extra?: $ZodType | undefined }, input: unknown): unknown {
    if (this.approximate && isUnsure(input)) {
      this.unsure = true;
      return FAIL;
    }
    if (value instanceof Rejected) return this.fail(value.issue);
    return this.refined(plan, value, input);
  }

  walk(plan: Plan, input: unknown): unknown {
    switch (plan.kind) {
      case "string":
        return this.scalar(checkString(plan, input), plan, input);
      case "number":
        return this.scalar(checkNumber(plan, input), plan, input);
      case "boolean":
        return this.scalar(checkBoolean(input), plan, input);
      case "choice":
        return this.scalar(checkChoice(plan, input), plan, input);
      case "array":
        return this.array(plan, input);
      case "object":
        return this.object(plan, input);
      case "optional":
        return input === undefined ? undefined : this.walk(plan.inner, input);
      case "nullable":
        return input === null ? null : this.walk(plan.inner, input);
      case "passthrough":
        return this.walk(plan.inner, input);
      case "default":
        if (input !== undefined) return this.walk(plan.inner, input);
        return plan.prefault ? this.walk(plan.inner, plan.value()) : plan.value();
      case "pipe": {
        const first = this.walk(plan.in, input);
        return first === FAIL ? FAIL : this.walk(plan.out, first);
      }
      case "lazy":
        return this.walk(plan.resolve(), input);
      case "transform": {
        const out = plan.fn(plainValue(input));
        if (out instanceof Promise) throw new TypeError("Expected a synchronous transform");
        return out;
      }
      case "null":
        return input === null ? null : this.fail((loc) => simpleIssue("none_required", loc, input));
      case "any":
        return plainValue(input);
      case "zod":
        return this.zod(plan.schema, plainValue(input), input);
    }
  }

  // Runs zod on a plain value: refinements (after pydantic's own checks passed) and schemas we do not
  // map. An issue shows the input as the client sent it where the path reaches it.
  zod(schema: $ZodType, value: unknown, input: unknown): unknown {
    const result = safeParse(schema, value, { reportInput: true });
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const shown =
        issue.path.length === 0
          ? input
          : (valueAt(input, issue.path) ?? (issue as { input?: unknown }).input);
      this.issues.push(valueError([...this.path, ...(issue.path as LocItem[])], shown, issue.message));
    }
    return FAIL;
  }

  refined(plan: { extra?: $ZodType | undefined }, value: unknown, input: unknown): unknown {
    if (!plan.extra) return value;
    return this.zod(plan.extra, value, input) === FAIL ? FAIL : value;
  }

  array(plan: ArrayPlan, input: unknown): unknown {
    if (!Array.isArray(input)) return this.fail((loc) => simpleIssue("list_type", loc, input));
    const max = plan.max;
    // pydantic stops at the item past the limit and reports only too_long, dropping item errors.
    if (max !== undefined && input.length > max)
      return this.fail((loc) => listLength("too_long", loc, input, max));
    const out: unknown[] = new Array(input.length);
    let failed = false;
    for (let i = 0; i < input.length; i++) {
      const item = this.at(i, plan.item, input[i]);
      if (item === FAIL) failed = true;
      else out[i] = item;
    }
    if (failed) return FAIL;
    const min = plan.min;
    if (min !== undefined && input.length < min)
      return this.fail((loc) => listLength("too_short", loc, input, min));
    return this.refined(plan, out, input);
  }

  // A dict is a Map (exact input) or a plain object (JSON.parse's, or a caller's).
  object(plan: ObjectPlan, input: unknown): unknown {
    if (typeof input !== "object" || input === null || Array.isArray(input) || input instanceof PyFloat) {
      return this.fail((loc) => modelAttributesType(loc, input));
    }
    const source =
      input instanceof Map ? (input as Map<string, unknown>) : (input as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    let failed = false;
    for (const field of plan.fields) {
      const value = read(source, field.key);
      if (value === undefined && !field.optional) {
        this.issues.push(missing([...this.path, field.key], input));
        failed = true;
        continue;
      }
      const result = this.at(field.key, field.plan, value);
      if (result === FAIL) failed = true;
      else if (result !== undefined) setOwn(out, field.key, result);
    }
    if (plan.unknown !== "ignore") failed = this.unknownKeys(plan, plan.unknown, source, out) || failed;
    if (failed) return FAIL;
    return this.refined(plan, out, input);
  }

  // Extra keys come after the declared fields, in the body's order, as pydantic reports them.
  unknownKeys(plan: ObjectPlan, rule: "forbid" | Plan, source: Dict, out: Record<string, unknown>) {
    let failed = false;
    for (const key of source instanceof Map ? source.keys() : Object.keys(source)) {
      if (plan.keys.has(key)) continue;
      const value = read(source, key);
      if (rule === "forbid") {
        this.issues.push(extraForbidden([...this.path, key], value));
        failed = true;
        continue;
      }
      const result = this.at(key, rule, value);
      if (result === FAIL) failed = true;
      else setOwn(out, key, result);
    }
    return failed;
  }
}

/**
 * Runs a compiled plan; the building block of validateValue and the request helpers. An approximate
 * input that needs its exact value fails with no issues (see ValidateOptions).
 */
export function validatePlan(
  plan: Plan,
  input: unknown,
  loc: readonly LocItem[] = [],
  options: ValidateOptions = {},
): Validated<unknown> {
  const walker = new Walker(loc, options);
  const value = walker.walk(plan, input);
  if (walker.unsure) return { ok: false, issues: [] };
  if (value === FAIL || walker.issues.length > 0) return { ok: false, issues: walker.issues };
  return { ok: true, value };
}

/**
 * Validates `input` against a zod 4 schema the way pydantic 2 validates it for FastAPI.
 * @example validateValue(z.object({ limit: z.int().max(100) }), { limit: "101" }, ["query"])
 *   // { ok: false, issues: [{ type: "less_than_equal", loc: ["query", "limit"], ... }] }
 */
export function validateValue<S extends $ZodType>(
  schema: S,
  input: unknown,
  loc: readonly LocItem[] = [],
): Validated<output<S>> {
  return validatePlan(planOf(schema), input, loc) as Validated<output<S>>;
}
