import type { z } from "zod";
import type { CommonResponseName } from "./common-responses.ts";
import type { ResponseDoc } from "./response-doc.ts";

// What a route file declares next to its handlers, and the OpenAPI document is generated from: the
// operations of each path, with the zod schemas the handlers validate with and answer in.

export type Tag =
  | "health"
  | "snapshots"
  | "keys"
  | "papers"
  | "verify"
  | "submissions"
  | "webhooks"
  | "reference"
  | "mcp"
  | "bench"
  | "readers";

export interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tags: readonly [Tag, ...Tag[]];
  /** Needs an `X-API-Key`: the document puts the security scheme on the operation. */
  keyed?: boolean;
  /** The key may also come as `Authorization: Bearer <key>`: the document lists both schemes. */
  bearer?: boolean;
  /** How often it may be called; the document adds it to the description. */
  rateLimit?: string;
  path?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers by their HTTP name, e.g. `If-None-Match`. */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** By status: a response of its own, or one shared by many operations (components.responses). */
  responses: Readonly<Record<number, ResponseDoc | CommonResponseName>>;
}

/** One path as `route()` registers it, with its operations. GET operations answer HEAD too. */
export interface PathDoc {
  /** h3 syntax, as registered: `/v1/daily/:date`. */
  route: string;
  /** More registered paths that answer the same operations, which OpenAPI cannot express. */
  aliases?: readonly string[];
  get?: OperationDoc;
  post?: OperationDoc;
  put?: OperationDoc;
  delete?: OperationDoc;
}
