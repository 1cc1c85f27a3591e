// The flat validation plans that plan.ts reads zod schemas into, and validate.ts runs.
import type { $ZodType } from "zod/v4/core";
import type { LiteralValue } from "./py-repr.ts";

export interface Pattern {
  regex: RegExp;
  /** The pattern text pydantic reports in string_pattern_mismatch. */
  source: string;
}

export interface Refinements {
  /** Zod checks pydantic has no constraint for (refine, superRefine, email, ...), run after the node passed. */
  extra?: $ZodType | undefined;
}

export interface StringPlan extends Refinements {
  kind: "string";
  min?: number | undefined;
  max?: number | undefined;
  patterns: Pattern[];
  rewrites: ((text: string) => string)[];
}

export interface NumberPlan extends Refinements {
  kind: "number";
  int: boolean;
  gt?: number | undefined;
  ge?: number | undefined;
  lt?: number | undefined;
  le?: number | undefined;
  multipleOf?: number | undefined;
}

export interface ArrayPlan extends Refinements {
  kind: "array";
  item: Plan;
  min?: number | undefined;
  max?: number | undefined;
}

export interface FieldPlan {
  key: string;
  plan: Plan;
  /** The field may be absent: optional, default or prefault somewhere in its wrappers. */
  optional: boolean;
}

export interface ObjectPlan extends Refinements {
  kind: "object";
  fields: FieldPlan[];
  keys: Set<string>;
  /** z.object ignores unknown keys, z.strictObject forbids them, a catchall validates them. */
  unknown: "ignore" | "forbid" | Plan;
}

export interface ChoicePlan extends Refinements {
  kind: "choice";
  type: "enum" | "literal_error";
  values: LiteralValue[];
  expected: string;
}

export type Plan =
  | StringPlan
  | NumberPlan
  | ArrayPlan
  | ObjectPlan
  | ChoicePlan
  | ({ kind: "boolean" } & Refinements)
  | { kind: "optional" | "nullable" | "passthrough"; inner: Plan }
  | { kind: "default"; inner: Plan; value: () => unknown; prefault: boolean }
  | { kind: "pipe"; in: Plan; out: Plan }
  | { kind: "lazy"; resolve: () => Plan }
  /** A zod transform that takes the value alone (no `ctx`, so it adds no issue): called directly. */
  | { kind: "transform"; fn: (value: unknown) => unknown }
  | { kind: "null" }
  | { kind: "any" }
  | { kind: "zod"; schema: $ZodType };
