import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_CHANNELS } from "../../../pipeline/domain/feed-channels.ts";
import { EMPTY_PROFILE, PROFILE_BOUNDS } from "../../../pipeline/domain/reader-profile.ts";
import { WebhookCreateSchema } from "../../../pipeline/domain/webhook.ts";
import { generateKey } from "../../../server/access/key-format.ts";
import { limitByKey } from "../../../server/access/key-limit.ts";
import { DEFAULT_CONFIG } from "../../../server/config.ts";
import type { AppContext } from "../../../server/context.ts";
import { issueFeedToken } from "../../../server/readers/feed-tokens.ts";
import { writeProfile } from "../../../server/readers/reader-store.ts";
import { openApiDocument } from "../../../server/routes/docs-routes.ts";
import {
  createSnapshotCache,
  DayUnavailableError,
  type SnapshotCache,
} from "../../../server/snapshots/snapshot-cache.ts";
import { fanOut } from "../../../server/webhooks/fan-out.ts";
import { type Call, type CallInit, clientFor, MODES } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { checkedAnswers } from "../../helpers/contract.ts";
import { publishSampleDays } from "../../helpers/published.ts";
import { createSwitchableStore } from "./switchable-store.ts";

// Every operation, with good and bad input, through clientFor: each answer is checked against the
// document on the way (../helpers/contract.ts). The last test asks that every answer the document
// describes was produced and checked at least once, so the document promises nothing the server never says.

type ClientName = "main" | "empty" | "shifted" | "down" | "refused" | "fresh";

interface World {
  free: string;
  enterprise: string;
  /** A bench key of the firm "acme". */
  bench: string;
  spent: string;
  /** A free key of the "shifted" client's store. */
  shiftedFree: string;
  /** A key that has all the webhooks it may have, and spends its profile writes. */
  full: string;
  /** A free key whose profile holds all the ratings its tier allows. */
  rater: string;
  /** The personal feed's token of a free key nothing else writes to, and one of a key that spent its feed reads. */
  feedToken: string;
  spentFeedToken: string;
  pickId: string;
  submissionId: number;
  webhookId: string;
  doomedWebhookId: string;
  deliveryId: string;
  etags: Map<string, string>;
}

interface Case {
  status: number;
  client?: ClientName;
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string | ((world: World) => string);
  key?:
    | keyof Pick<World, "free" | "enterprise" | "bench" | "spent" | "shiftedFree" | "full" | "rater">
    | "unknown";
  body?: string | Uint8Array | ((world: World) => string);
  /** Send If-None-Match with the ETag an earlier GET of this path got. */
  conditional?: boolean;
  /** More request headers; a body is sent as application/json unless these say otherwise. */
  headers?: Record<string, string>;
}

const KEY_REQUEST = JSON.stringify({ email: "ada@example.org", label: "reader" });
const MESSAGE = JSON.stringify({
  subject: "Our meeting on Tuesday",
  body: "Hello Jane, thank you for the call. The notes are attached.",
  recipient: "jane@example.com",
  options: { llm_check: false },
});
const SUBMISSION = JSON.stringify({
  runtime_name: "AgentBox",
  vendor: "Example Labs",
  url: "https://example.com/agentbox",
  description: "A sandboxed runtime for tool-calling agents with audit logs and human approval steps.",
  contact_email: "team@example.com",
});
const HUGE = JSON.stringify({ email: "a@b.c", label: "x".repeat(1_100_000) });
const NOT_UTF8 = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x20]);
const BIBTEX = { "content-type": "application/x-bibtex" };
/** Profile writes a key may make a minute here: the "full" key spends them all. */
const PROFILE_WRITES = 40;
const FEED_READS = 20;
const NO_TOKEN = `rpf_${"0".repeat(43)}`;
const feedPath =
  (form: "xml" | "json", token: "feedToken" | "spentFeedToken" = "feedToken") =>
  (world: World) =>
    `/v1/feeds/for-you/${world[token]}.${form}`;

// The hosted MCP server: one JSON-RPC message per request, from a client that takes either answer form.
const MCP_ACCEPT = { accept: "application/json, text/event-stream" };
const rpc = (method: string, id?: number) =>
  JSON.stringify({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method, params: {} });
const TOOLS_LIST = rpc("tools/list", 1);
const TOOL_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "labs_axes", arguments: {} },
});
const mcp = (status: number, body: string | Uint8Array, extra: Partial<Case> = {}): Case => ({
  status,
  method: "POST",
  path: "/mcp",
  key: "free",
  body,
  ...extra,
  headers: { ...MCP_ACCEPT, ...extra.headers },
});

// A public address written as a literal: creating the endpoint looks nothing up, and no worker runs
// here, so nothing is ever sent to it.
const WEBHOOK = JSON.stringify({ url: "https://93.184.215.14/hook", events: ["daily.published"] });
type WebhookPath = (world: World) => string;
/** The answers every webhook operation shares, after its own success case. */
const webhookCases = (method: "GET" | "POST" | "DELETE", path: WebhookPath, ok: Case): Case[] => [
  ok,
  { status: 401, method, path },
  { status: 403, method, path, key: "free" },
  {
    status: 404,
    method,
    path: (world) => path({ ...world, webhookId: "wh_000000000000000000000000" }),
    key: "enterprise",
  },
  { status: 503, client: "down", method, path, key: "unknown" },
];
const hook: WebhookPath = (world) => `/v1/webhooks/${world.webhookId}`;
const WATCHLIST = JSON.stringify({
  papers: ["arXiv:2401.12345v2"],
  authors: ["Ada Lovelace"],
  terms: ["model risk"],
});
const RUBRIC = JSON.stringify({
  weights: { A6: 3 },
  signals: [{ axis: "A6", terms: ["model risk"], weight: 2 }],
});
const HUGE_BENCH = JSON.stringify({ papers: ["x".repeat(600_000)] });
// Every bench path: 200 for a bench key, 401 without a key, 403 for another tier, 503 with the store down.
const benchReads = (path: string): Case[] => [
  { status: 200, path, key: "bench" },
  { status: 401, path },
  { status: 403, path, key: "enterprise" },
  { status: 503, client: "down", path, key: "unknown" },
];
const benchWrite = (path: string, body: string, bad: string): Case[] => [
  { status: 200, method: "PUT", path, key: "bench", body },
  { status: 401, method: "PUT", path, body },
  { status: 403, method: "PUT", path, key: "free", body },
  { status: 413, method: "PUT", path, key: "bench", body: HUGE_BENCH },
  { status: 422, method: "PUT", path, key: "bench", body: bad },
  { status: 503, client: "down", method: "PUT", path, key: "unknown", body },
];

const SNAPSHOT_PATHS = [
  "/v1/stats",
  "/v1/axes",
  "/v1/ranker",
  "/v1/recent",
  "/v1/daily/latest",
  "/v1/daily/2026-11-20",
];

const SCREENED_PATH = "/v1/screened/2026-11-20";

const FEED_PATHS = FEED_CHANNELS.flatMap((channel) => [`/${channel.atomFile}`, `/${channel.jsonFile}`]);

const CASES: Case[] = [
  { status: 200, path: "/health" },
  { status: 200, client: "down", path: "/health" },
  ...SNAPSHOT_PATHS.flatMap((path): Case[] => [
    { status: 200, path },
    { status: 304, path, conditional: true },
  ]),
  ...SNAPSHOT_PATHS.slice(0, 5).map((path): Case => ({ status: 404, client: "empty", path })),
  ...FEED_PATHS.flatMap((path): Case[] => [
    { status: 200, path },
    { status: 304, path, conditional: true },
    { status: 404, client: "empty", path },
  ]),
  { status: 404, path: "/v1/daily/2026-11-21" },
  // Days not held in memory have a per-address rate, 2 here: the GET and HEAD above spent it.
  { status: 429, path: "/v1/daily/2026-11-22" },
  { status: 422, path: "/v1/daily/2026-02-30" },
  { status: 503, client: "refused", path: "/v1/daily/2026-11-19" },
  // A day's screened file: read from its file when asked, under the same per-address rate as older
  // days, which the "fresh" client has not spent and the main client has.
  { status: 200, client: "fresh", path: SCREENED_PATH },
  { status: 304, client: "fresh", path: SCREENED_PATH, conditional: true },
  { status: 404, client: "fresh", path: "/v1/screened/2026-11-21" },
  { status: 422, client: "fresh", path: "/v1/screened/2026-02-30" },
  { status: 429, path: "/v1/screened/2026-11-19" },
  { status: 201, method: "POST", path: "/v1/keys", body: KEY_REQUEST },
  { status: 429, method: "POST", path: "/v1/keys", body: KEY_REQUEST },
  { status: 422, method: "POST", path: "/v1/keys", body: '{"email":"ab"}' },
  { status: 422, method: "POST", path: "/v1/keys", body: '{"email": ' },
  { status: 400, method: "POST", path: "/v1/keys", body: NOT_UTF8 },
  { status: 413, method: "POST", path: "/v1/keys", body: HUGE },
  { status: 503, client: "down", method: "POST", path: "/v1/keys", body: KEY_REQUEST },
  { status: 200, path: "/v1/me", key: "free" },
  { status: 200, path: "/v1/me", key: "enterprise" },
  { status: 401, path: "/v1/me" },
  { status: 401, path: "/v1/me", key: "unknown" },
  { status: 503, client: "down", path: "/v1/me", key: "unknown" },
  { status: 200, method: "PUT", path: "/v1/me/library", key: "free", body: (world) => `["${world.pickId}"]` },
  {
    status: 200,
    method: "POST",
    path: "/v1/me/library",
    key: "free",
    body: "@misc{k, title = {Agent audit logs}, eprint = {2401.00001}, archivePrefix = {arXiv}}",
    headers: BIBTEX,
  },
  {
    status: 422,
    method: "PUT",
    path: "/v1/me/library",
    key: "free",
    body: "@misc{k,\n title = {x",
    headers: BIBTEX,
  },
  { status: 422, method: "POST", path: "/v1/me/library", key: "free", body: '{"ids": []}' },
  {
    status: 413,
    method: "PUT",
    path: "/v1/me/library",
    key: "free",
    body: JSON.stringify(Array.from({ length: 101 }, (_, i) => `2401.${10000 + i}`)),
  },
  { status: 413, method: "POST", path: "/v1/me/library", key: "free", body: `["${"x".repeat(2_100_000)}"]` },
  {
    status: 415,
    method: "PUT",
    path: "/v1/me/library",
    key: "free",
    body: "2401.00001",
    headers: { "content-type": "text/plain" },
  },
  {
    status: 415,
    method: "POST",
    path: "/v1/me/library",
    key: "free",
    body: "2401.00001",
    headers: { "content-type": "text/plain" },
  },
  ...(["PUT", "POST"] as const).flatMap((method): Case[] => [
    { status: 401, method, path: "/v1/me/library", body: "[]" },
    { status: 503, client: "down", method, path: "/v1/me/library", key: "unknown", body: "[]" },
  ]),
  {
    status: 200,
    method: "PUT",
    path: (world) => `/v1/me/ratings/${world.pickId}`,
    key: "free",
    body: '{"rating": 1}',
  },
  { status: 404, method: "PUT", path: "/v1/me/ratings/2001.00001", key: "free", body: '{"rating": -1}' },
  {
    status: 409,
    method: "PUT",
    path: (world) => `/v1/me/ratings/${world.pickId}`,
    key: "rater",
    body: '{"rating": 1}',
  },
  {
    status: 422,
    method: "PUT",
    path: (world) => `/v1/me/ratings/${world.pickId}`,
    key: "free",
    body: '{"rating": 0}',
  },
  { status: 200, method: "DELETE", path: (world) => `/v1/me/ratings/${world.pickId}`, key: "free" },
  { status: 422, method: "DELETE", path: "/v1/me/ratings/not-an-id", key: "free" },
  ...(["PUT", "DELETE"] as const).flatMap((method): Case[] => [
    { status: 401, method, path: "/v1/me/ratings/2401.00001", body: '{"rating": 1}' },
    {
      status: 503,
      client: "down",
      method,
      path: "/v1/me/ratings/2401.00001",
      key: "unknown",
      body: '{"rating": 1}',
    },
  ]),
  { status: 200, method: "PUT", path: "/v1/me/follows", key: "free", body: '{"authors": ["Ada Lovelace"]}' },
  { status: 422, method: "PUT", path: "/v1/me/follows", key: "free", body: '{"authors": "Ada"}' },
  { status: 401, method: "PUT", path: "/v1/me/follows", body: "{}" },
  { status: 503, client: "down", method: "PUT", path: "/v1/me/follows", key: "unknown", body: "{}" },
  { status: 200, path: "/v1/me/profile", key: "free" },
  { status: 200, method: "DELETE", path: "/v1/me/profile", key: "enterprise" },
  ...(["GET", "DELETE"] as const).flatMap((method): Case[] => [
    { status: 401, method, path: "/v1/me/profile" },
    { status: 503, client: "down", method, path: "/v1/me/profile", key: "unknown" },
  ]),
  // The "full" key spends its profile writes (a GET's HEAD counts too), then each write is a 429.
  ...Array.from(
    { length: PROFILE_WRITES },
    (): Case => ({
      status: 200,
      method: "PUT",
      path: "/v1/me/follows",
      key: "full",
      body: "{}",
    }),
  ),
  { status: 429, method: "PUT", path: "/v1/me/library", key: "full", body: "[]" },
  { status: 429, method: "POST", path: "/v1/me/library", key: "full", body: "[]" },
  { status: 429, method: "PUT", path: "/v1/me/ratings/2401.00001", key: "full", body: '{"rating": 1}' },
  { status: 429, method: "DELETE", path: "/v1/me/ratings/2401.00001", key: "full" },
  { status: 429, method: "PUT", path: "/v1/me/follows", key: "full", body: "{}" },
  { status: 429, path: "/v1/me/profile", key: "full" },
  { status: 429, method: "DELETE", path: "/v1/me/profile", key: "full" },
  { status: 200, path: "/v1/me/picks?limit=3", key: "free" },
  { status: 401, path: "/v1/me/picks" },
  { status: 403, client: "shifted", path: "/v1/me/picks?date=2026-11-18", key: "shiftedFree" },
  { status: 404, path: "/v1/me/picks?date=2026-11-21", key: "free" },
  { status: 422, path: "/v1/me/picks?date=2026-02-30&limit=0", key: "free" },
  { status: 429, path: "/v1/me/picks", key: "spent" },
  { status: 503, client: "down", path: "/v1/me/picks", key: "unknown" },
  { status: 201, method: "POST", path: "/v1/me/feed-token", key: "enterprise" },
  { status: 401, method: "POST", path: "/v1/me/feed-token" },
  { status: 429, method: "POST", path: "/v1/me/feed-token", key: "full" },
  { status: 503, client: "down", method: "POST", path: "/v1/me/feed-token", key: "unknown" },
  ...(["xml", "json"] as const).flatMap((form): Case[] => [
    { status: 200, path: feedPath(form) },
    { status: 304, path: feedPath(form), conditional: true },
    { status: 404, path: `/v1/feeds/for-you/${NO_TOKEN}.${form}` },
    { status: 404, path: `/v1/feeds/for-you/not-a-token.${form}` },
    { status: 429, path: feedPath(form, "spentFeedToken") },
    { status: 503, client: "down", path: `/v1/feeds/for-you/${NO_TOKEN}.${form}` },
  ]),
  { status: 200, path: "/v1/papers", key: "free" },
  { status: 200, path: "/v1/papers?axis=A6&min_score=2&days=30&limit=3", key: "enterprise" },
  { status: 401, path: `/v1/papers?api_key=${generateKey()}` },
  { status: 422, path: "/v1/papers?axis=A10&limit=0", key: "free" },
  { status: 429, path: "/v1/papers", key: "spent" },
  { status: 503, client: "down", path: "/v1/papers", key: "unknown" },
  { status: 200, path: (world) => `/v1/papers/${world.pickId}`, key: "free" },
  { status: 200, path: (world) => `/v1/papers/${world.pickId}v2`, key: "enterprise" },
  { status: 401, path: (world) => `/v1/papers/${world.pickId}` },
  { status: 403, client: "shifted", path: (world) => `/v1/papers/${world.pickId}`, key: "shiftedFree" },
  { status: 404, path: "/v1/papers/1706.03762", key: "free" },
  { status: 404, path: "/v1/papers/cs/0112017", key: "free" },
  { status: 422, path: "/v1/papers/not-an-id", key: "free" },
  { status: 429, path: (world) => `/v1/papers/${world.pickId}`, key: "spent" },
  { status: 503, client: "down", path: "/v1/papers/2401.12345", key: "unknown" },
  { status: 200, method: "POST", path: "/v1/verify", body: MESSAGE },
  { status: 429, method: "POST", path: "/v1/verify", body: MESSAGE },
  { status: 422, method: "POST", path: "/v1/verify", body: '{"subject":"","options":{"redlist":"x"}}' },
  { status: 400, method: "POST", path: "/v1/verify", body: NOT_UTF8 },
  { status: 413, method: "POST", path: "/v1/verify", body: HUGE },
  { status: 503, client: "down", method: "POST", path: "/v1/verify", body: MESSAGE },
  { status: 202, method: "POST", path: "/v1/score/submit", body: SUBMISSION },
  { status: 429, method: "POST", path: "/v1/score/submit", body: SUBMISSION },
  { status: 422, method: "POST", path: "/v1/score/submit", body: '{"url":"ftp://example.com"}' },
  { status: 400, method: "POST", path: "/v1/score/submit", body: NOT_UTF8 },
  { status: 413, method: "POST", path: "/v1/score/submit", body: HUGE },
  { status: 503, client: "down", method: "POST", path: "/v1/score/submit", body: SUBMISSION },
  { status: 200, path: (world) => `/v1/score/submission/${world.submissionId}` },
  { status: 404, path: "/v1/score/submission/999999" },
  { status: 422, path: "/v1/score/submission/first" },
  { status: 503, client: "down", path: "/v1/score/submission/1" },
  { status: 200, path: "/v1/score/leaderboard?limit=5" },
  { status: 422, path: "/v1/score/leaderboard?limit=101" },
  { status: 503, client: "down", path: "/v1/score/leaderboard" },
  { status: 201, method: "POST", path: "/v1/webhooks", key: "enterprise", body: WEBHOOK },
  { status: 400, method: "POST", path: "/v1/webhooks", key: "enterprise", body: NOT_UTF8 },
  { status: 401, method: "POST", path: "/v1/webhooks", body: WEBHOOK },
  { status: 403, method: "POST", path: "/v1/webhooks", key: "free", body: WEBHOOK },
  { status: 409, method: "POST", path: "/v1/webhooks", key: "full", body: WEBHOOK },
  { status: 413, method: "POST", path: "/v1/webhooks", key: "enterprise", body: HUGE },
  {
    status: 422,
    method: "POST",
    path: "/v1/webhooks",
    key: "enterprise",
    body: '{"url":"ftp://x.org/a","events":["nope"]}',
  },
  { status: 503, client: "down", method: "POST", path: "/v1/webhooks", key: "unknown", body: WEBHOOK },
  { status: 200, path: "/v1/webhooks", key: "enterprise" },
  { status: 401, path: "/v1/webhooks" },
  { status: 403, path: "/v1/webhooks", key: "free" },
  { status: 503, client: "down", path: "/v1/webhooks", key: "unknown" },
  ...webhookCases("GET", hook, { status: 200, path: hook, key: "enterprise" }),
  ...webhookCases("POST", (world) => `${hook(world)}/rotate-secret`, {
    status: 200,
    method: "POST",
    path: (world) => `${hook(world)}/rotate-secret`,
    key: "enterprise",
  }),
  ...webhookCases("POST", (world) => `${hook(world)}/test`, {
    status: 202,
    method: "POST",
    path: (world) => `${hook(world)}/test`,
    key: "enterprise",
  }),
  ...webhookCases("GET", (world) => `${hook(world)}/deliveries`, {
    status: 200,
    path: (world) => `${hook(world)}/deliveries`,
    key: "enterprise",
  }),
  ...webhookCases("POST", (world) => `${hook(world)}/deliveries/${world.deliveryId}/retry`, {
    status: 202,
    method: "POST",
    path: (world) => `${hook(world)}/deliveries/${world.deliveryId}/retry`,
    key: "enterprise",
  }),
  // The endpoint's rate is 2 here: the test and the retry above spent it.
  { status: 429, method: "POST", path: (world) => `${hook(world)}/test`, key: "enterprise" },
  {
    status: 429,
    method: "POST",
    path: (world) => `${hook(world)}/deliveries/${world.deliveryId}/retry`,
    key: "enterprise",
  },
  ...webhookCases("DELETE", (world) => `/v1/webhooks/${world.doomedWebhookId}`, {
    status: 204,
    method: "DELETE",
    path: (world) => `/v1/webhooks/${world.doomedWebhookId}`,
    key: "enterprise",
  }),
  mcp(200, TOOLS_LIST),
  mcp(200, TOOL_CALL, { key: "enterprise" }),
  mcp(202, rpc("notifications/initialized")),
  mcp(400, '{"jsonrpc": '),
  mcp(401, TOOLS_LIST, { key: undefined }),
  mcp(403, TOOLS_LIST, { headers: { origin: "https://evil.example" } }),
  mcp(406, TOOLS_LIST, { headers: { accept: "text/html" } }),
  mcp(413, HUGE),
  mcp(415, TOOLS_LIST, { headers: { "content-type": "text/plain" } }),
  mcp(429, TOOL_CALL, { key: "spent" }),
  mcp(503, TOOL_CALL, { client: "down", key: "unknown" }),
  ...benchWrite("/v1/bench/watchlist", WATCHLIST, '{"papers":["nope"],"terms":"x"}'),
  ...benchReads("/v1/bench/watchlist"),
  ...benchWrite("/v1/bench/rubric", RUBRIC, '{"weights":{"A6":4},"signals":[]}'),
  { status: 429, method: "PUT", path: "/v1/bench/rubric", key: "bench", body: RUBRIC },
  ...benchReads("/v1/bench/rubric"),
  { status: 422, path: "/v1/bench/rubric?cursor=x", key: "bench" },
  ...benchReads("/v1/bench/picks?days=7"),
  { status: 422, path: "/v1/bench/picks?days=0", key: "bench" },
  ...benchReads("/v1/bench/tracking"),
  { status: 422, path: "/v1/bench/tracking?days=x", key: "bench" },
  ...benchReads("/v1/bench/notes"),
  ...benchReads("/v1/bench/notes/2026-W47"),
  { status: 200, path: "/v1/bench/notes/2026-W47", key: "bench", headers: { accept: "text/markdown" } },
  { status: 200, path: "/v1/bench/notes/2026-W47", key: "bench", headers: { accept: "text/html" } },
  { status: 404, path: "/v1/bench/notes/2025-W53", key: "bench" },
  { status: 422, path: "/v1/bench/notes/2026-47", key: "bench" },
  { status: 200, path: "/v1/openapi.json" },
  { status: 304, path: "/v1/openapi.json", conditional: true },
  { status: 200, path: "/v1/docs" },
  { status: 304, path: "/v1/docs", conditional: true },
];

let snapshots: SnapshotCache;
let emptySnapshots: SnapshotCache;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
  emptySnapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-empty-")) });
});
afterAll(() => {
  snapshots.close();
  emptySnapshots.close();
});

/** The snapshots of a bucket where every older day's object is not the one the manifest names. */
function refusing(cache: SnapshotCache): SnapshotCache {
  return {
    ...cache,
    lookup: (pathname) => (pathname.startsWith("/v1/daily/2") ? undefined : cache.lookup(pathname)),
    async read(pathname) {
      if (!pathname.startsWith("/v1/daily/2")) return cache.read(pathname);
      throw new DayUnavailableError(`The published day ${pathname.slice(10)} is unavailable`);
    },
  };
}

/** The snapshots ten days on, when the sample's picks are older than a free key's seven days of history. */
function shifted(cache: SnapshotCache): SnapshotCache {
  const days = cache.days();
  return {
    ...cache,
    latestDate: () => "2026-11-30",
    days: () => [{ date: "2026-11-30", picks: [] }, ...days],
  };
}

describe.each(MODES)("every operation against the document (%s)", (mode) => {
  const clients = new Map<ClientName, { call: Call; close: () => Promise<void> }>();
  const world: World = {
    free: "",
    enterprise: "",
    bench: "",
    spent: "",
    shiftedFree: "",
    full: "",
    rater: "",
    feedToken: "",
    spentFeedToken: "",
    pickId: "",
    submissionId: 0,
    webhookId: "",
    doomedWebhookId: "",
    deliveryId: "",
    etags: new Map(),
  };

  beforeAll(async () => {
    const config = {
      verifyLimit: 1,
      submitLimit: 1,
      benchRubricRate: { ...DEFAULT_CONFIG.benchRubricRate, limit: 1 },
      webhookActionEndpointRate: { ...DEFAULT_CONFIG.webhookActionEndpointRate, limit: 2 },
      oldDayRate: { ...DEFAULT_CONFIG.oldDayRate, limit: 2 },
      profileWriteRate: { ...DEFAULT_CONFIG.profileWriteRate, limit: PROFILE_WRITES },
      feedReadRate: { ...DEFAULT_CONFIG.feedReadRate, limit: FEED_READS },
    };
    // A still clock (the context's and its store's): the per-key rates are fixed windows of the clock,
    // and none may end between the calls that spend a rate and the later ones that expect its 429.
    const main = await testContext(snapshots, { config, now: () => Date.parse("2026-11-29T12:00:30Z") });
    const issue = async (context: AppContext, tier: "free" | "enterprise") =>
      (await context.keys.issue({ tier, email: `${tier}@example.org`, label: tier })).key;
    world.free = await issue(main, "free");
    world.enterprise = await issue(main, "enterprise");
    world.bench = (
      await main.keys.issue({ tier: "bench", email: "b@example.org", label: "b", firm: "acme" })
    ).key;
    world.spent = await issue(main, "free");
    const spent = await main.keys.find(world.spent);
    if (!spent) throw new Error("the spent key is missing");
    for (let i = 0; i < 100; i++) await main.keys.spend(spent);
    world.pickId = snapshots.days()[0]?.picks[0]?.arxiv_id ?? "";
    world.submissionId = (await main.submissions.submit(JSON.parse(SUBMISSION))).id;
    const owner = async (key: string) => (await main.keys.find(key))?.id ?? "";
    world.full = await issue(main, "enterprise");
    world.rater = await issue(main, "free");
    const ratings = Object.fromEntries(
      Array.from({ length: PROFILE_BOUNDS.free.ratings }, (_, i) => [`2401.${10000 + i}`, 1 as const]),
    );
    await writeProfile(main.store, await owner(world.rater), { ...EMPTY_PROFILE, version: 1, ratings }, null);
    const create = async (key: string) => {
      const created = await main.webhooks.create(
        await owner(key),
        WebhookCreateSchema.parse(JSON.parse(WEBHOOK)),
      );
      if (!created.ok) throw new Error(created.why);
      return created.view.id;
    };
    for (let i = 0; i < 10; i++) await create(world.full);
    world.webhookId = await create(world.enterprise);
    world.doomedWebhookId = await create(world.enterprise);
    world.deliveryId =
      (await main.webhooks.sendTest(await owner(world.enterprise), world.webhookId))?.deliveryId ?? "";
    // The test event is fanned out here by hand: no worker runs, so nothing is sent anywhere.
    await fanOut(main.store, (await main.store.getKeys("webhook:event"))[0]?.split(":")[2] ?? "");
    clients.set("main", await clientFor(mode, main));

    clients.set("empty", await clientFor(mode, await testContext(emptySnapshots)));
    const later = await testContext(shifted(snapshots));
    world.shiftedFree = await issue(later, "free");
    clients.set("shifted", await clientFor(mode, later));

    clients.set("refused", await clientFor(mode, await testContext(refusing(snapshots))));
    const fresh = await clientFor(mode, await testContext(snapshots));
    clients.set("fresh", fresh);
    world.etags.set(SCREENED_PATH, (await fresh.call(SCREENED_PATH)).headers.get("etag") ?? "");

    const { store, setDown } = await createSwitchableStore();
    clients.set("down", await clientFor(mode, await testContext(snapshots, { store })));
    setDown(true);

    const { call } = clients.get("main") as { call: Call };
    const tokenOf = async (key: string) => {
      const record = await main.keys.find(key);
      if (!record) throw new Error("the feed's key is missing");
      const issued = await issueFeedToken(main.store, record, "2026-11-21T06:00:00Z");
      if (issued === null || issued === "revoked") throw new Error("the feed's token was not issued");
      return { record, token: issued.token };
    };
    world.feedToken = (await tokenOf(await issue(main, "free"))).token;
    const spentFeed = await tokenOf(await issue(main, "free"));
    world.spentFeedToken = spentFeed.token;
    await limitByKey(main, main.config.feedReadRate, spentFeed.record.id, FEED_READS);
    for (const form of ["xml", "json"] as const) {
      const path = feedPath(form)(world);
      world.etags.set(path, (await call(path)).headers.get("etag") ?? "");
    }
    for (const path of [...SNAPSHOT_PATHS, ...FEED_PATHS, "/v1/openapi.json", "/v1/docs"]) {
      world.etags.set(path, (await call(path)).headers.get("etag") ?? "");
    }
  });
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
  });

  const send = async (entry: Case, method: string): Promise<Response> => {
    const path = typeof entry.path === "function" ? entry.path(world) : entry.path;
    const headers: Record<string, string> = {};
    if (entry.key) headers["x-api-key"] = entry.key === "unknown" ? generateKey() : world[entry.key];
    if (entry.conditional) headers["if-none-match"] = world.etags.get(path) ?? "";
    if (entry.body !== undefined) headers["content-type"] = "application/json";
    Object.assign(headers, entry.headers);
    const body = typeof entry.body === "function" ? entry.body(world) : entry.body;
    const init: CallInit = { method, headers, ...(body !== undefined && { body }) };
    const client = clients.get(entry.client ?? "main");
    if (!client) throw new Error(`no ${entry.client} client`);
    return client.call(path, init);
  };

  it.each(
    CASES.map((entry) => [entry.method ?? "GET", entry.path, entry.status, entry] as const),
  )("%s %s answers %i as described (and so does HEAD for a GET)", async (method, _path, status, entry) => {
    expect((await send(entry, method)).status).toBe(status);
    if (method === "GET") expect((await send(entry, "HEAD")).status).toBe(status);
  });
});

describe("the cases above", () => {
  it("produced every answer the document describes, for every method of every path", () => {
    const seen = new Set(checkedAnswers().map(({ path, method, status }) => `${method} ${path} ${status}`));
    const described: string[] = [];
    for (const [path, item] of Object.entries(openApiDocument().paths as Record<string, object>)) {
      for (const [method, operation] of Object.entries(item as Record<string, { responses: object }>)) {
        for (const status of Object.keys(operation.responses)) {
          described.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(described.length).toBeGreaterThan(100);
    expect(described.filter((answer) => !seen.has(answer))).toEqual([]);
  });
});
