import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PapersRequestSchema } from "../../../pipeline/domain/screened-answers.ts";
import { TIERS } from "../../../pipeline/domain/tiers.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import { openApiDocument } from "../../../server/routes/docs-routes.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, clientFor } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";

type Json = Record<string, unknown>;
type Operation = {
  operationId: string;
  description: string;
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required: boolean; schema: Json }>;
  requestBody?: { required: boolean; content: Record<string, { schema: Json }> };
  responses: Record<string, Json>;
};

const document = openApiDocument() as {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; securitySchemes: Json };
};
const operation = (path: string, method: string): Operation => {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method} ${path} in the document`);
  return found;
};

let snapshots: SnapshotCache;
let call: Call;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-doc-")) });
  ({ call } = await clientFor("in-process", await testContext(snapshots)));
});
afterAll(() => snapshots.close());

describe("GET /v1/openapi.json", () => {
  it("serves the document as prepared bytes with an ETag, and 304 for a current copy", async () => {
    const response = await call("/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const etag = response.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(await response.text()).toBe(JSON.stringify(document));
    const again = await call("/v1/openapi.json", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 for Research-Picks API 0.1.0", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.info).toMatchObject({ title: "Research-Picks API", version: "0.1.0" });
  });

  it("has every path with its methods, GET ones with HEAD", () => {
    const methods = Object.fromEntries(
      Object.entries(document.paths).map(([path, item]) => [path, Object.keys(item).sort().join(",")]),
    );
    const read = "get,head";
    expect(methods).toEqual({
      "/health": read,
      ...Object.fromEntries(
        ["", "-substrate", "-governance", "-research", "-reg-fit-3"].flatMap((stem) => [
          [`/feed${stem}.xml`, read],
          [`/feed${stem}.json`, read],
        ]),
      ),
      "/v1/stats": read,
      "/v1/axes": read,
      "/v1/ranker": read,
      "/v1/recent": read,
      "/v1/daily/latest": read,
      "/v1/daily/{date}": read,
      "/v1/screened/{date}": read,
      "/v1/keys": "post",
      "/v1/me": read,
      "/v1/me/library": "post,put",
      "/v1/me/ratings/{arxiv_id}": "delete,put",
      "/v1/me/follows": "put",
      "/v1/me/profile": "delete,get,head",
      "/v1/me/picks": read,
      "/v1/me/feed-token": "post",
      "/v1/feeds/for-you/{token}.xml": read,
      "/v1/feeds/for-you/{token}.json": read,
      "/v1/papers": read,
      "/v1/papers/{arxiv_id}": read,
      "/v1/verify": "post",
      "/v1/score/submit": "post",
      "/v1/score/submission/{submission_id}": read,
      "/v1/score/leaderboard": read,
      "/v1/webhooks": "get,head,post",
      "/v1/webhooks/{webhook_id}": "delete,get,head",
      "/v1/webhooks/{webhook_id}/rotate-secret": "post",
      "/v1/webhooks/{webhook_id}/test": "post",
      "/v1/webhooks/{webhook_id}/deliveries": read,
      "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry": "post",
      "/mcp": "post",
      "/v1/openapi.json": read,
      "/v1/docs": read,
      "/v1/bench/watchlist": "get,head,put",
      "/v1/bench/rubric": "get,head,put",
      "/v1/bench/picks": read,
      "/v1/bench/tracking": read,
      "/v1/bench/notes": read,
      "/v1/bench/notes/{week}": read,
    });
  });

  it("documents the daily.published delivery's body, its for_you list optional, as a webhook", () => {
    const { webhooks } = document as unknown as {
      webhooks: Record<string, { post: Operation & { tags: string[] } }>;
    };
    const post = webhooks["daily.published"]?.post;
    expect(post?.security).toEqual([]);
    expect(post?.description).toContain("data.for_you");
    const ref = post?.requestBody?.content["application/json"]?.schema.$ref as string;
    const body = document.components.schemas[ref.split("/").at(-1) as string] as {
      properties: { data: { $ref?: string; properties?: Json; required?: string[] } };
    };
    const data = body.properties.data.$ref
      ? (document.components.schemas[body.properties.data.$ref.split("/").at(-1) as string] as {
          properties: Json;
          required: string[];
        })
      : (body.properties.data as { properties: Json; required: string[] });
    expect(Object.keys(data.properties)).toEqual(
      expect.arrayContaining(["date", "counts", "picks", "snapshot_url", "for_you"]),
    );
    expect(data.required).toContain("snapshot_url");
    expect(data.required).not.toContain("for_you");
  });

  it("names the 422 components as FastAPI does: loc, msg and type required, input and ctx optional", () => {
    const { ValidationError, HTTPValidationError, HTTPError } = document.components.schemas;
    expect(ValidationError?.required).toEqual(["loc", "msg", "type"]);
    expect(Object.keys(ValidationError?.properties as Json)).toEqual(["loc", "msg", "type", "input", "ctx"]);
    expect(HTTPValidationError?.properties).toEqual({
      detail: { type: "array", items: { $ref: "#/components/schemas/ValidationError" } },
    });
    expect(HTTPError?.required).toEqual(["detail"]);
    expect(operation("/v1/papers", "get").responses["422"]).toEqual({
      $ref: "#/components/responses/ValidationFailed",
    });
  });

  it("puts the X-API-Key scheme on the keyed operations only", () => {
    expect(document.components.securitySchemes).toMatchObject({
      APIKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
    });
    const keyed = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => op.security.length > 0)
      .map((op) => op.operationId)
      .sort();
    expect(keyed).toEqual(
      [
        "getMe",
        "getPaper",
        "headGetMe",
        "headGetPaper",
        "headListPapers",
        "listPapers",
        "mcp",
        ...["createWebhook", "deleteWebhook", "getWebhook", "headGetWebhook", "headListWebhookDeliveries"],
        ...["headListWebhooks", "listWebhookDeliveries", "listWebhooks", "retryWebhookDelivery"],
        ...["rotateWebhookSecret", "testWebhook"],
        ...["addToLibrary", "replaceLibrary", "ratePaper", "clearRating", "setFollows"],
        ...["exportProfile", "headExportProfile", "eraseProfile", "getPersonalPicks", "headGetPersonalPicks"],
        "issueFeedToken",
        ...["getBenchNote", "getBenchPicks", "getBenchRubric", "getBenchTracking", "getBenchWatchlist"],
        ...["headGetBenchNote", "headGetBenchPicks", "headGetBenchRubric", "headGetBenchTracking"],
        ...[
          "headGetBenchWatchlist",
          "headListBenchNotes",
          "listBenchNotes",
          "putBenchRubric",
          "putBenchWatchlist",
        ],
      ].sort(),
    );
    for (const id of ["getMe", "getPaper", "listPapers"]) {
      const path = Object.keys(document.paths).find((p) =>
        Object.values(document.paths[p] ?? {}).some((op) => op.operationId === id),
      );
      const op = Object.values(document.paths[path ?? ""] ?? {}).find((o) => o.operationId === id);
      expect(op?.security).toEqual([{ APIKeyHeader: [] }]);
      expect(op?.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    }
  });

  it("gives the query parameters their bounds and defaults, from the schema the route validates with", () => {
    const parameters = operation("/v1/papers", "get").parameters ?? [];
    const expected = z.toJSONSchema(PapersRequestSchema, { io: "input" }).properties as Record<string, Json>;
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ["days", "query", false],
      ["axis", "query", false],
      ["min_score", "query", false],
      ["min_reg_fit", "query", false],
      ["limit", "query", false],
      ["scope", "query", false],
    ]);
    for (const { name, schema } of parameters) {
      const { description: _description, ...bounds } = expected[name] as Json;
      expect(schema, name).toEqual(bounds);
    }
    expect(parameters.find((p) => p.name === "limit")?.schema).toEqual({
      default: 25,
      type: "integer",
      minimum: 1,
      maximum: 5000,
    });
    expect(parameters.find((p) => p.name === "scope")?.schema).toEqual({
      default: "picks",
      type: "string",
      enum: ["picks", "screened"],
    });
    const paper = operation("/v1/papers/{arxiv_id}", "get").parameters ?? [];
    expect(paper.map((p) => [p.name, p.in])).toEqual([
      ["arxiv_id", "path"],
      ["scope", "query"],
    ]);
    const leaderboard = operation("/v1/score/leaderboard", "get").parameters ?? [];
    expect(leaderboard[0]?.schema).toMatchObject({ default: 25, minimum: 1, maximum: 100 });
  });

  it("describes the request bodies with their defaults optional", () => {
    const verify = operation("/v1/verify", "post").requestBody;
    expect(verify?.required).toBe(true);
    expect(verify?.content["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/VerifyRequest",
    });
    expect(document.components.schemas.VerifyRequest?.required).toEqual(["subject", "body", "recipient"]);
    expect(document.components.schemas.KeyIssueRequest?.required).toEqual(["email", "label"]);
  });

  it("describes the rate limits with the numbers the server enforces", () => {
    expect(operation("/v1/verify", "post").description).toContain(
      `${DEFAULT_CONFIG.verifyLimit} per client address per hour`,
    );
    expect(operation("/v1/keys", "post").description).toContain(
      `${DEFAULT_CONFIG.keyIssueLimit} per client address per 24 hours`,
    );
    expect(operation("/v1/score/submit", "post").description).toContain(
      `${DEFAULT_CONFIG.submitLimit} per client address per 24 hours`,
    );
    for (const path of ["/v1/papers", "/v1/papers/{arxiv_id}"]) {
      expect(operation(path, "get").description).toContain(
        `free: ${TIERS.free.calls_per_window} calls per ${TIERS.free.window_days} days`,
      );
    }
    expect(operation("/v1/me", "get").description).toContain("spends no quota");
  });

  it("declares the headers where they are sent", () => {
    const headers = (path: string, method: string, status: string) =>
      Object.keys((operation(path, method).responses[status]?.headers as Json | undefined) ?? {});
    expect(headers("/v1/daily/{date}", "get", "200")).toEqual(["ETag", "Cache-Control"]);
    expect(headers("/v1/daily/{date}", "get", "304")).toEqual(["ETag", "Cache-Control"]);
    expect(headers("/v1/score/submit", "post", "202")).toContain("Location");
    expect(Object.keys(document.components.responses.TooManyRequests?.headers as Json)).toEqual([
      "Retry-After",
      "RateLimit",
      "RateLimit-Policy",
    ]);
    expect(Object.keys(document.components.responses.StoreUnavailable?.headers as Json)).toEqual([
      "Retry-After",
    ]);
  });
});
