import { z } from "zod";

// The SDK validates arguments itself and answers a mismatch with zod's issue list, which tells an agent
// what went wrong but not what to do next. So the SDK gets a schema that accepts any object yet
// advertises the real one (zod merges `.meta()` into the JSON Schema it writes), and the tool checks
// the arguments itself with messages that name the fix.

/** A JSON Schema object as `z.toJSONSchema` writes it; only the keys the messages need are typed. */
interface PropertySchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

interface ObjectJsonSchema {
  properties?: Record<string, PropertySchema>;
}

/**
 * Extra advice for a field, given the value that failed: "call labs_axes" and the like; undefined
 * leaves the usual message.
 */
export type ArgumentHints = Record<string, (input: unknown) => string | undefined>;

export type ParsedArguments<T> = { ok: true; value: T } | { ok: false; message: string };

const jsonSchemas = new WeakMap<z.ZodObject, ObjectJsonSchema & Record<string, unknown>>();

/** The JSON Schema a client sees for a tool's arguments (computed once per schema). */
export function argumentsJsonSchema(schema: z.ZodObject): ObjectJsonSchema & Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", target: "draft-7" });
    json = rest as ObjectJsonSchema & Record<string, unknown>;
    jsonSchemas.set(schema, json);
  }
  return json;
}

/** What the SDK is given as `inputSchema`: lets every object through, advertises `schema`. */
export function advertisedInput(schema: z.ZodObject) {
  return z.looseObject({}).meta(argumentsJsonSchema(schema));
}

/** The value as the message quotes it: long ones cut, so a refusal never echoes a huge argument. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return `\`${text.length > 80 ? `${text.slice(0, 80)}…` : text}\``;
}

function expectation(property: PropertySchema | undefined): string {
  if (!property) return "a valid value";
  if (property.enum) return `one of ${property.enum.join(", ")}`;
  if (property.type === "integer" || property.type === "number") {
    const kind = property.type === "integer" ? "a whole number" : "a number";
    if (property.minimum !== undefined && property.maximum !== undefined) {
      return `${kind} from ${property.minimum} to ${property.maximum}`;
    }
    if (property.minimum !== undefined) return `${kind} of at least ${property.minimum}`;
    return kind;
  }
  if (property.type === "boolean") return "true or false";
  if (property.type === "string") {
    const kind = property.minLength ? "a non-empty string" : "a string";
    return property.maxLength === undefined ? kind : `${kind} of at most ${property.maxLength} characters`;
  }
  return `a value of type ${property.type ?? "unknown"}`;
}

/**
 * Models often send `null` for "not set" and numbers or booleans as strings; both are taken as meant.
 * Anything else is left for the schema to judge.
 */
function lenient(raw: Record<string, unknown>, json: ObjectJsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null) continue;
    const type = json.properties?.[key]?.type;
    if (
      typeof value === "string" &&
      (type === "integer" || type === "number") &&
      /^-?\d+(\.\d+)?$/.test(value)
    ) {
      out[key] = Number(value);
    } else if (typeof value === "string" && type === "boolean" && (value === "true" || value === "false")) {
      out[key] = value === "true";
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Checks a tool's arguments against its schema; on failure, one message per problem that says what
 * was expected and, where a hint exists, what to do.
 * @example parseToolArguments("labs_papers", PapersInputSchema, { limit: 0 })
 * // { ok: false, message: "Expected `limit` to be a whole number from 1 to 5000, got `0`" }
 */
export function parseToolArguments<S extends z.ZodObject>(
  tool: string,
  schema: S,
  raw: Record<string, unknown> | undefined,
  hints: ArgumentHints = {},
): ParsedArguments<z.output<S>> {
  const json = argumentsJsonSchema(schema);
  const input = lenient(raw ?? {}, json);
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const names = Object.keys(json.properties ?? {});
  const problems = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const takes = names.length === 0 ? "takes no arguments" : `takes ${names.join(", ")}`;
      return issue.keys.map((key) => `unknown argument \`${key}\`; ${tool} ${takes}`).join("\n");
    }
    const field = String(issue.path[0] ?? "");
    const property = json.properties?.[field];
    const value = input[field];
    if (value === undefined) return `missing argument \`${field}\`: expected ${expectation(property)}`;
    const hinted = hints[field]?.(value);
    if (hinted !== undefined) return hinted;
    return `Expected \`${field}\` to be ${expectation(property)}, got ${shown(value)}`;
  });
  return { ok: false, message: [...new Set(problems)].join("\n") };
}
