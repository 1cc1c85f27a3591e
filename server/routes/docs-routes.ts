import type { H3, H3Event } from "h3";
import { z } from "zod";
import { OpenApiDocumentSchema } from "../../pipeline/domain/api-answers.ts";
import { notFound } from "../http/answers.ts";
import { type PreparedResponse, prepare, sendPrepared } from "../http/prepared.ts";
import { pathParam, route } from "../http/route-table.ts";
import { buildOpenApiDocument } from "../openapi/build-document.ts";
import { DOCUMENT_INFO } from "../openapi/document-info.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { referencePage } from "../openapi/reference-page.ts";
import { API_PATHS } from "../openapi/registry.ts";
import type { ResponseDoc } from "../openapi/response-doc.ts";
import { ConditionalHeadersSchema } from "./read-routes.ts";
import { webhookEvents } from "./webhook-routes.ts";

const validators = { ETag: true, "Cache-Control": true } as const;

function servedOnce(operation: Omit<OperationDoc, "responses">, ok: ResponseDoc): OperationDoc {
  return {
    ...operation,
    headers: ConditionalHeadersSchema,
    responses: {
      200: { ...ok, headers: validators },
      304: { description: "The copy named in If-None-Match is current.", headers: validators },
    },
  };
}

/** The operations of this file, for the OpenAPI document. */
const docsPaths: readonly PathDoc[] = [
  {
    route: "/v1/openapi.json",
    get: servedOnce(
      {
        operationId: "getOpenApi",
        summary: "This description",
        description:
          "The OpenAPI 3.1 document of the API, generated from the zod schemas the server validates " +
          "requests with and builds its answers from.",
        tags: ["reference"],
      },
      { description: "The OpenAPI document.", body: OpenApiDocumentSchema },
    ),
  },
  {
    route: "/v1/docs",
    get: servedOnce(
      {
        operationId: "getReference",
        summary: "Interactive reference",
        description:
          "Swagger UI over this description. The page and its assets come from this server alone (under " +
          "/v1/docs/assets/), so it works without any other network access.",
        tags: ["reference"],
      },
      { description: "The reference page.", body: z.string(), mediaType: "text/html" },
    ),
  },
];

/** Every path the document describes: the API's and these. */
export const documentedPaths: readonly PathDoc[] = [...API_PATHS, ...docsPaths];

let document: Record<string, unknown> | undefined;
let served: PreparedResponse | undefined;

/** The OpenAPI document, built on first use and then kept. */
export function openApiDocument(): Record<string, unknown> {
  document ??= buildOpenApiDocument(documentedPaths, DOCUMENT_INFO, webhookEvents);
  return document;
}

const send = (event: H3Event, prepared: PreparedResponse): Response => sendPrepared(prepared, event.req);

/** GET /v1/openapi.json, the reference page at /v1/docs and the page's assets. */
export function registerDocsRoutes(app: H3): void {
  route(app, "/v1/openapi.json", {
    GET: (event) => {
      served ??= prepare(Buffer.from(JSON.stringify(openApiDocument())), "no-cache");
      return send(event, served);
    },
  });
  route(app, "/v1/docs", { GET: async (event) => send(event, (await referencePage()).page) });
  route(app, "/v1/docs/assets/:file", {
    GET: async (event) => {
      const asset = (await referencePage()).assets.get(pathParam(event, "file"));
      return asset ? send(event, asset) : notFound();
    },
  });
}
