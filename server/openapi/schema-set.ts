import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

const componentRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

// z.int() is bounded to the safe integers; said on every integer, that only hides the real bounds.
function dropSafeIntegerBounds(json: JsonSchema): void {
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
}

const override = ({ jsonSchema }: { jsonSchema: JsonSchema }) => dropSafeIntegerBounds(jsonSchema);

function withoutDialect(json: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = json;
  return rest;
}

/**
 * The named schemas of one direction (requests are converted as zod's input, answers as its output:
 * defaults make request fields optional and answer fields present). Schemas are referenced as they are
 * met and converted together at the end, so a named schema inside another becomes a `$ref`.
 */
export class SchemaSet {
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<string, z.ZodType>();
  private readonly io: "input" | "output";

  constructor(io: "input" | "output", named: Readonly<Record<string, z.ZodType>> = {}) {
    this.io = io;
    for (const [name, schema] of Object.entries(named)) this.name(schema, name);
  }

  /** A `$ref` to the schema's component: its registered name, else `fallbackName`. */
  ref(schema: z.ZodType, fallbackName: string): JsonSchema {
    return componentRef(this.nameOf(schema) ?? this.name(schema, fallbackName));
  }

  /** The schema written out in place, for parameters and bodies that are not objects. */
  inline(schema: z.ZodType): JsonSchema {
    return withoutDialect(z.toJSONSchema(schema, { io: this.io, override }) as JsonSchema);
  }

  /** The component name of a schema, when it has one. */
  nameOf(schema: z.ZodType): string | undefined {
    return this.registry.get(schema)?.id;
  }

  /** Every named schema, for components.schemas. */
  components(): Record<string, JsonSchema> {
    const converted = z.toJSONSchema(this.registry, {
      io: this.io,
      override,
      uri: (id) => `#/components/schemas/${id}`,
    }).schemas;
    const { __shared: shared, ...schemas } = converted;
    // Shared definitions would land outside components, where no `$ref` of the document reaches.
    if (shared) throw new Error(`Expected no shared definitions, got ${Object.keys(shared).join(", ")}`);
    return Object.fromEntries(
      Object.entries(schemas).map(([name, json]) => [name, withoutDialect(json as JsonSchema)]),
    );
  }

  private name(schema: z.ZodType, name: string): string {
    const taken = this.names.get(name);
    if (taken && taken !== schema) throw new Error(`Two different schemas are both named ${name}`);
    if (!taken) {
      this.names.set(name, schema);
      this.registry.add(schema, { id: name });
    }
    return name;
  }
}
