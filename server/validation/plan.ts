// Zod 4 schemas, read once into flat validation plans with pydantic's constraint set. Plans are cached
// per schema object, so the request path never walks a zod definition twice.
import type { $ZodCheck, $ZodType } from "zod/v4/core";
import type { ArrayPlan, ChoicePlan, FieldPlan, ObjectPlan, Plan } from "./plan-types.ts";
import { expectedRepr, type LiteralValue } from "./py-repr.ts";
import {
  checkDef,
  compileNumber,
  compileString,
  type Def,
  defOf,
  foldLengthCheck,
  refinements,
} from "./scalar-plans.ts";

const cache = new WeakMap<$ZodType, Plan>();

/** The plan for a schema, compiled on first use. Recursive schemas get their placeholder back. */
export function planOf(schema: $ZodType): Plan {
  const cached = cache.get(schema);
  if (cached) return cached;
  const plan = {} as Plan;
  cache.set(schema, plan);
  Object.assign(plan, compile(schema));
  return plan;
}

function compileArray(def: Def): Plan {
  if (!def.element) throw new TypeError("array schema without element");
  const plan: ArrayPlan = { kind: "array", item: planOf(def.element) };
  const extra: $ZodCheck<never>[] = [];
  for (const check of def.checks ?? []) {
    if (!foldLengthCheck(plan, checkDef(check))) extra.push(check);
  }
  plan.extra = refinements(extra);
  return plan;
}

function compileObject(def: Def): ObjectPlan {
  const shape = def.shape ?? {};
  const fields = Object.keys(shape).map((key): FieldPlan => {
    const child = shape[key] as $ZodType;
    return { key, plan: planOf(child), optional: child._zod.optin !== undefined };
  });
  const catchall = def.catchall;
  let unknown: ObjectPlan["unknown"] = "ignore";
  if (catchall) unknown = defOf(catchall).type === "never" ? "forbid" : planOf(catchall);
  return {
    kind: "object",
    fields,
    keys: new Set(Object.keys(shape)),
    unknown,
    extra: refinements(def.checks ?? []),
  };
}

// zod's getEnumValues: numeric TypeScript enums carry reverse mappings that are not values.
function enumValues(entries: Record<string, string | number>): LiteralValue[] {
  const numeric = Object.values(entries).filter((v) => typeof v === "number");
  return Object.entries(entries)
    .filter(([key]) => !numeric.includes(Number(key)))
    .map(([, value]) => value);
}

function choice(type: ChoicePlan["type"], values: LiteralValue[], checks: $ZodCheck<never>[]): ChoicePlan {
  return { kind: "choice", type, values, expected: expectedRepr(values), extra: refinements(checks) };
}

// Unions pydantic spells differently: Literal['a', 'b'] and Optional[X]; the rest go to zod.
function compileUnion(schema: $ZodType, def: Def): Plan {
  const options = def.options ?? [];
  const optionDefs = options.map(defOf);
  if (!def.checks?.length && optionDefs.every((d) => d.type === "literal" || d.type === "enum")) {
    const values = optionDefs.flatMap((d) =>
      d.type === "enum" ? enumValues(d.entries ?? {}) : (d.values ?? []),
    );
    return choice("literal_error", values, []);
  }
  const nonNull = options.filter((_, i) => optionDefs[i]?.type !== "null");
  const only = nonNull[0];
  if (!def.checks?.length && options.length === 2 && nonNull.length === 1 && only) {
    return { kind: "nullable", inner: planOf(only) };
  }
  return { kind: "zod", schema };
}

function inner(def: Def): Plan {
  if (!def.innerType) throw new TypeError(`${def.type} schema without innerType`);
  return planOf(def.innerType);
}

function compile(schema: $ZodType): Plan {
  const def = defOf(schema);
  switch (def.type) {
    case "string":
      return compileString(schema, def);
    case "number":
      return compileNumber(def);
    case "boolean":
      return { kind: "boolean", extra: refinements(def.checks ?? []) };
    case "array":
      return compileArray(def);
    case "object":
      return compileObject(def);
    case "enum":
      return choice("enum", enumValues(def.entries ?? {}), def.checks ?? []);
    case "literal":
      return choice("literal_error", def.values ?? [], def.checks ?? []);
    case "union":
      return compileUnion(schema, def);
    case "optional":
    case "nullable":
      return { kind: def.type, inner: inner(def) };
    case "readonly":
      return { kind: "passthrough", inner: inner(def) };
    case "default":
    case "prefault": {
      // zod's defaultValue is a getter that clones, so every request gets its own default object.
      const value = () => defOf(schema).defaultValue;
      return { kind: "default", inner: inner(def), value, prefault: def.type === "prefault" };
    }
    case "pipe":
      if (!def.in || !def.out) throw new TypeError("pipe schema without in/out");
      return { kind: "pipe", in: planOf(def.in), out: planOf(def.out) };
    case "lazy": {
      const getter = def.getter;
      if (!getter) throw new TypeError("lazy schema without getter");
      let resolved: Plan | undefined;
      return { kind: "lazy", resolve: () => (resolved ??= planOf(getter())) };
    }
    case "transform": {
      // Through zod, a transform costs a parse context per call (~2 µs); one that cannot report an
      // issue (it takes no `ctx`) is just a function.
      const fn = def.transform;
      return fn && fn.length <= 1
        ? { kind: "transform", fn: (value) => fn(value, undefined) }
        : { kind: "zod", schema };
    }
    case "null":
      return { kind: "null" };
    case "any":
    case "unknown":
      return { kind: "any" };
    default:
      return { kind: "zod", schema };
  }
}
