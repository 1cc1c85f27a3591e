// Validation at the HTTP edge: path, query and header parameters and the body, located and ordered as
// FastAPI reports them (path, query, header, body), with one 422 for all of them.
import type { $ZodObject, $ZodType, output } from "zod/v4/core";
import { type LocItem, missing, type ValidationIssue, validationErrorBody } from "./errors.ts";
import { type BodyOptions, parseJsonBody } from "./json-body.ts";
import { planOf } from "./plan.ts";
import type { ObjectPlan, Plan } from "./plan-types.ts";
import { setOwn } from "./py-value.ts";
import { type Validated, validatePlan, validateValue } from "./validate.ts";

type Where = "path" | "query" | "header";
type Read = (name: string, sequence: boolean) => string | string[] | undefined;

interface ParamField {
  key: string;
  /** The name looked up and reported in `loc`: FastAPI turns `x_api_key` into the header `x-api-key`. */
  name: string;
  plan: Plan;
  optional: boolean;
  /** A list parameter collects every occurrence; a scalar takes the last, as Starlette's `get`. */
  sequence: boolean;
}

function isSequence(plan: Plan): boolean {
  switch (plan.kind) {
    case "array":
      return true;
    case "optional":
    case "nullable":
    case "passthrough":
    case "default":
      return isSequence(plan.inner);
    case "pipe":
      return isSequence(plan.in);
    default:
      return false;
  }
}

const fieldCache: Record<Where, WeakMap<$ZodObject, ParamField[]>> = {
  path: new WeakMap(),
  query: new WeakMap(),
  header: new WeakMap(),
};

function paramFields(schema: $ZodObject, where: Where): ParamField[] {
  const cached = fieldCache[where].get(schema);
  if (cached) return cached;
  const plan = planOf(schema);
  if (plan.kind !== "object")
    throw new TypeError(`${where} parameters need a z.object schema, got ${plan.kind}`);
  const fields = plan.fields.map((field) => ({
    key: field.key,
    name: where === "header" ? field.key.replaceAll("_", "-") : field.key,
    plan: field.plan,
    optional: field.optional,
    sequence: isSequence(field.plan),
  }));
  fieldCache[where].set(schema, fields);
  return fields;
}

function validateParams<S extends $ZodObject>(
  schema: S,
  where: Where,
  read: Read,
  fields: readonly ParamField[] = paramFields(schema, where),
): Validated<output<S>> {
  const issues: ValidationIssue[] = [];
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = read(field.name, field.sequence);
    const absent = raw === undefined || (Array.isArray(raw) && raw.length === 0);
    const loc: LocItem[] = [where, field.name];
    if (absent && !field.optional) {
      issues.push(missing(loc, null));
      continue;
    }
    const result = validatePlan(field.plan, absent ? undefined : raw, loc);
    if (!result.ok) issues.push(...result.issues);
    else if (result.value !== undefined) setOwn(out, field.key, result.value);
  }
  const extra = (planOf(schema) as ObjectPlan).extra;
  if (issues.length === 0 && extra) {
    const refined = validatePlan({ kind: "zod", schema: extra }, out, [where]);
    if (!refined.ok) issues.push(...refined.issues);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out as output<S> };
}

// A number plan without its maximum; the wrappers around it (default, optional, ...) are kept.
function withoutMaximum(plan: Plan): Plan {
  switch (plan.kind) {
    case "number":
      return { ...plan, le: undefined, lt: undefined };
    case "optional":
    case "nullable":
    case "passthrough":
    case "default":
      return { ...plan, inner: withoutMaximum(plan.inner) };
    default:
      throw new TypeError(`Expected a number parameter to lower, got ${plan.kind}`);
  }
}

const loweredCache = new WeakMap<$ZodObject, WeakMap<readonly string[], ParamField[]>>();

function loweredFields(schema: $ZodObject, lowered: readonly string[]): ParamField[] {
  let bySchema = loweredCache.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    loweredCache.set(schema, bySchema);
  }
  let fields = bySchema.get(lowered);
  if (!fields) {
    fields = paramFields(schema, "query").map((field) =>
      lowered.includes(field.key) ? { ...field, plan: withoutMaximum(field.plan) } : field,
    );
    bySchema.set(lowered, fields);
  }
  return fields;
}

export interface QueryOptions {
  /**
   * Parameters whose maximum the handler applies by lowering the value (a tier's cap): any integer
   * at or above the minimum passes, as FastAPI's `int` with only `ge` would, and one past 2**53 arrives
   * as Number.MAX_SAFE_INTEGER. The schema keeps its maximum, for the document and other callers.
   */
  lowered?: readonly string[];
}

/** Query parameters at loc ["query", name]; a repeated scalar takes its last value. */
export function validateQuery<S extends $ZodObject>(
  schema: S,
  params: URLSearchParams,
  options: QueryOptions = {},
): Validated<output<S>> {
  const fields = options.lowered ? loweredFields(schema, options.lowered) : undefined;
  return validateParams(
    schema,
    "query",
    (name, sequence) => {
      const values = params.getAll(name);
      return sequence ? values : values.at(-1);
    },
    fields,
  );
}

/** Path parameters (already percent-decoded by the router) at loc ["path", name]. */
export function validatePath<S extends $ZodObject>(
  schema: S,
  params: Readonly<Record<string, string | undefined>>,
): Validated<output<S>> {
  return validateParams(schema, "path", (name) => (Object.hasOwn(params, name) ? params[name] : undefined));
}

/**
 * Header parameters at loc ["header", name], underscores in the schema's keys read as hyphens.
 * Fetch joins repeated headers with ", " where Starlette takes the first; a list field gets that one value.
 */
export function validateHeaders<S extends $ZodObject>(schema: S, headers: Headers): Validated<output<S>> {
  return validateParams(schema, "header", (name, sequence) => {
    const value = headers.get(name) ?? undefined;
    return sequence ? (value === undefined ? [] : [value]) : value;
  });
}

/**
 * A parsed body (see parseJsonBody) at loc ["body"]: no body or `null` is `missing` unless optional.
 * With `exact`, `value` is JSON.parse's: a valid body is done at its speed, and only a refused one is
 * parsed again exactly and validated once more, so that its issues echo the input as the client wrote it.
 */
export function validateBody<S extends $ZodType>(
  schema: S,
  value: unknown,
  exact?: () => unknown,
): Validated<output<S>> {
  if (value === undefined || value === null) {
    if (schema._zod.optin === undefined) return { ok: false, issues: [missing(["body"], null)] };
    return validatePlan(planOf(schema), undefined, ["body"]) as Validated<output<S>>;
  }
  if (!exact) return validateValue(schema, value, ["body"]);
  const plan = planOf(schema);
  const fast = validatePlan(plan, value, ["body"], { approximate: true });
  if (fast.ok) return fast as Validated<output<S>>;
  return validatePlan(plan, exact(), ["body"]) as Validated<output<S>>;
}

export interface RequestSchemas {
  path?: $ZodObject;
  query?: $ZodObject;
  headers?: $ZodObject;
  body?: $ZodType;
}

type Out<S> = S extends $ZodType ? output<S> : undefined;

export interface ValidRequest<S extends RequestSchemas> {
  path: Out<S["path"]>;
  query: Out<S["query"]>;
  headers: Out<S["headers"]>;
  body: Out<S["body"]>;
}

export type RequestResult<S extends RequestSchemas> =
  | { ok: true; value: ValidRequest<S> }
  | { ok: false; status: 400 | 413 | 422; body: string };

export interface RequestOptions extends BodyOptions {
  /** The router's decoded path parameters. */
  params?: Readonly<Record<string, string | undefined>>;
  /** The request URL when the caller has it parsed already. */
  url?: URL;
}

/**
 * Validates a whole request. As in FastAPI the body is read first, so an unreadable body (400, 413 or
 * json_invalid) is answered alone; otherwise every issue, in the order path, query, header, body.
 */
export async function validateRequest<S extends RequestSchemas>(
  request: Request,
  schemas: S,
  options: RequestOptions = {},
): Promise<RequestResult<S>> {
  let rawBody: unknown;
  let exactBody: (() => unknown) | undefined;
  if (schemas.body) {
    const parsed = await parseJsonBody(request, options);
    if (!parsed.ok) return parsed;
    rawBody = parsed.value;
    exactBody = parsed.exact;
  }
  const issues: ValidationIssue[] = [];
  const take = <T>(result: Validated<T> | undefined): T | undefined => {
    if (result === undefined) return undefined;
    if (result.ok) return result.value;
    issues.push(...result.issues);
    return undefined;
  };
  const path = take(schemas.path && validatePath(schemas.path, options.params ?? {}));
  const query = take(
    schemas.query && validateQuery(schemas.query, (options.url ?? new URL(request.url)).searchParams),
  );
  const headers = take(schemas.headers && validateHeaders(schemas.headers, request.headers));
  const body = take(schemas.body && validateBody(schemas.body, rawBody, exactBody));
  if (issues.length > 0) return { ok: false, status: 422, body: validationErrorBody(issues) };
  return { ok: true, value: { path, query, headers, body } as ValidRequest<S> };
}
