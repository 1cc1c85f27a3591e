import { z } from "zod";
import { COMMON_RESPONSES, type CommonResponseName } from "./common-responses.ts";
import { ANSWER_SCHEMA_NAMES, REQUEST_SCHEMA_NAMES } from "./component-names.ts";
import { HEADERS, type HeaderName } from "./headers.ts";
import type { OperationDoc, PathDoc, Tag } from "./operation.ts";
import type { ResponseDoc } from "./response-doc.ts";
import { type JsonSchema, SchemaSet } from "./schema-set.ts";

type Json = Record<string, unknown>;

export interface DocumentInfo {
  title: string;
  version: string;
  summary: string;
  description: string;
  tags: Readonly<Record<Tag, string>>;
}

/** An event the service POSTs to webhook endpoints: the document's `webhooks`, by event type. */
export interface EventDoc {
  event: string;
  operationId: string;
  summary: string;
  description: string;
  /** The delivery's JSON body. */
  body: z.ZodType;
}

/** FastAPI's name for an X-API-Key header scheme, which clients of the original service know. */
const API_KEY_SCHEME = "APIKeyHeader";
/** The same key as `Authorization: Bearer <key>`, which MCP clients send. */
const BEARER_SCHEME = "APIKeyBearer";

/** `/v1/daily/:date` as OpenAPI writes it: `/v1/daily/{date}`. */
export function openApiPath(route: string): string {
  if (route.includes("*")) throw new Error(`Expected a path without wildcards, got ${route}`);
  return route.replace(/:(\w+)/g, "{$1}");
}

const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

function headerObjects(headers: ResponseDoc["headers"]): Json | undefined {
  const entries = Object.entries(headers ?? {}) as Array<[HeaderName, boolean]>;
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([name, always]) => [name, { ...HEADERS[name], required: always }]));
}

class Builder {
  readonly answers = new SchemaSet("output", ANSWER_SCHEMA_NAMES);
  readonly requests = new SchemaSet("input", REQUEST_SCHEMA_NAMES);

  private schemaOf(set: SchemaSet, schema: z.ZodType, fallbackName: string): JsonSchema {
    return schema instanceof z.ZodObject || set.nameOf(schema) !== undefined
      ? set.ref(schema, fallbackName)
      : set.inline(schema);
  }

  response(doc: ResponseDoc, fallbackName: string, withBody = true): Json {
    const headers = headerObjects(doc.headers);
    const content =
      doc.body && withBody
        ? {
            [doc.mediaType ?? "application/json"]: {
              schema: this.schemaOf(this.answers, doc.body, fallbackName),
            },
            ...(doc.eventStream && {
              "text/event-stream": { schema: { type: "string", description: doc.eventStream } },
            }),
            ...Object.fromEntries(
              Object.entries(doc.alternatives ?? {}).map(([type, description]) => [
                type,
                { schema: { type: "string", description } },
              ]),
            ),
          }
        : undefined;
    return { description: doc.description, ...(headers && { headers }), ...(content && { content }) };
  }

  parameters(where: "path" | "query" | "header", schema: z.ZodObject | undefined): Json[] {
    return Object.entries(schema?.shape ?? {}).map(([name, field]) => {
      const { description, ...json } = this.requests.inline(field as z.ZodType);
      const optional = where !== "path" && (field as z.ZodType)._zod.optin !== undefined;
      return { name, in: where, required: !optional, ...(description ? { description } : {}), schema: json };
    });
  }

  operation(op: OperationDoc, method: "get" | "head" | "post" | "put" | "delete"): Json {
    const head = method === "head";
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, doc]) => {
        const name = `${pascal(op.operationId)}${status === "200" ? "" : status}Response`;
        if (typeof doc !== "string") return [status, this.response(doc, name, !head)];
        // A HEAD answer has no body, so it cannot share the GET answer's component.
        if (head) return [status, this.response(COMMON_RESPONSES[doc], name, false)];
        return [status, { $ref: `#/components/responses/${doc}` }];
      }),
    );
    const parameters = [
      ...this.parameters("path", op.path),
      ...this.parameters("query", op.query),
      ...this.parameters("header", op.headers),
    ];
    const notes = [
      op.rateLimit && `**Rate limit.** ${op.rateLimit}`,
      op.keyed &&
        (op.bearer
          ? "**Key.** Send it in the X-API-Key header or as Authorization: Bearer <key>; POST /v1/keys issues a free one. Every answer is `Cache-Control: private, no-store`."
          : "**Key.** Send it in the X-API-Key header; POST /v1/keys issues a free one. Every answer is `Cache-Control: private, no-store`."),
    ].filter((note): note is string => typeof note === "string");
    return {
      operationId: head ? `head${pascal(op.operationId)}` : op.operationId,
      summary: head ? `${op.summary} (headers only)` : op.summary,
      description: [head ? "The GET answer's status and headers, without its body." : op.description]
        .concat(notes)
        .join("\n\n"),
      tags: [...op.tags],
      // An empty list says "no key needed" outright rather than leaving it to a global default.
      security: op.keyed ? [{ [API_KEY_SCHEME]: [] }, ...(op.bearer ? [{ [BEARER_SCHEME]: [] }] : [])] : [],
      ...(parameters.length > 0 && { parameters }),
      ...(op.body &&
        !head && {
          requestBody: {
            required: op.body._zod.optin === undefined,
            content: {
              "application/json": {
                schema: this.schemaOf(this.requests, op.body, `${pascal(op.operationId)}Request`),
              },
            },
          },
        }),
      responses,
    };
  }

  commonResponses(): Json {
    return Object.fromEntries(
      (Object.keys(COMMON_RESPONSES) as CommonResponseName[]).map((name) => [
        name,
        this.response(COMMON_RESPONSES[name], name),
      ]),
    );
  }

  /** Every GET operation gets its HEAD twin, as `route()` answers HEAD with the GET handler. */
  pathItems(paths: readonly PathDoc[]): Record<string, Json> {
    const items: Record<string, Json> = {};
    for (const doc of paths) {
      const path = openApiPath(doc.route);
      if (items[path]) throw new Error(`Expected ${path} to be declared once`);
      const item: Json = {};
      if (doc.get) {
        item.get = this.operation(doc.get, "get");
        item.head = this.operation(doc.get, "head");
      }
      if (doc.post) item.post = this.operation(doc.post, "post");
      if (doc.put) item.put = this.operation(doc.put, "put");
      if (doc.delete) item.delete = this.operation(doc.delete, "delete");
      items[path] = item;
    }
    return items;
  }

  /** What the service sends is an answer of its own: its schemas are converted as output. */
  webhook(doc: EventDoc): Json {
    return {
      post: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        tags: ["webhooks"],
        // The receiver checks the signature, not a key of ours.
        security: [],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: this.answers.ref(doc.body, `${pascal(doc.operationId)}Body`) },
          },
        },
        responses: { "2XX": { description: "Received: any 2xx within 10 s counts as delivered." } },
      },
    };
  }
}

const SECURITY_SCHEMES = {
  [API_KEY_SCHEME]: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "A key from POST /v1/keys. Never in the query string: such requests are refused.",
  },
  [BEARER_SCHEME]: {
    type: "http",
    scheme: "bearer",
    description: "The same key as a bearer token, where an operation says it takes one (/mcp).",
  },
};

/**
 * The OpenAPI 3.1 document of the given paths, generated from the zod schemas their operations name.
 * Every GET operation gets its HEAD twin, as `route()` answers HEAD with the GET handler.
 */
export function buildOpenApiDocument(
  paths: readonly PathDoc[],
  info: DocumentInfo,
  events: readonly EventDoc[] = [],
): Json {
  const builder = new Builder();
  const pathItems = builder.pathItems(paths);
  const webhooks = Object.fromEntries(events.map((doc) => [doc.event, builder.webhook(doc)]));
  const responses = builder.commonResponses();
  const answerSchemas = builder.answers.components();
  const requestSchemas = builder.requests.components();
  for (const name of Object.keys(requestSchemas)) {
    if (name in answerSchemas) throw new Error(`Expected ${name} to name either a request or an answer`);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      summary: info.summary,
      description: info.description,
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "this server" }],
    tags: Object.entries(info.tags).map(([name, description]) => ({ name, description })),
    paths: pathItems,
    ...(events.length > 0 && { webhooks }),
    components: {
      schemas: { ...answerSchemas, ...requestSchemas },
      responses,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
