import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PersonalPicks } from "../../pipeline/domain/reader-answers.ts";
import type { RequestLine } from "../../server/metrics/request-log.ts";
import { stopChild } from "../helpers/local-process.ts";
import { type Collecting, jsonLines, PICKS_BIN, startCollecting } from "../helpers/processes.ts";
import { waitFor } from "../helpers/prometheus.ts";
import { publishRankedSampleDays } from "../helpers/published.ts";

// The proof that profile data never reaches the request log or the metrics: a real `picks serve`
// with the request log on (LOG_REQUESTS=1) and /metrics behind a token, driven through every route that
// takes or gives profile data (library, ratings, follows, GET /v1/me/picks, the feed token and the feeds,
// MCP labs_for_me). Its whole stdout (the log) and stderr, and the /metrics exposition, are then searched
// for every piece of that data: library titles, the rated paper, the follows, the feed tokens (the
// current one, the replaced one, and one sent with a suffix to an unrouted path), and the list's titles.

const METRICS_TOKEN = "profile-privacy-metrics-token-0123";
const LIBRARY_TITLE = "Quokka lattices for zebrafish model governance";
const LIBRARY_ABSTRACT = "An unmistakable abstract about quokka lattices and zebrafish audits.";
const FOLLOWED_PHRASE = "zephyrine audit lattice";

let server: Collecting;
let base: string;

beforeAll(async () => {
  const { publicDir } = await publishRankedSampleDays();
  server = await startCollecting([PICKS_BIN, "serve", "--port", "0", "--public", publicDir], {
    ...process.env,
    STATE_DIR: await mkdtemp(join(tmpdir(), "picks-privacy-")),
    LOG_REQUESTS: "1",
    METRICS_TOKEN,
  });
  base = server.url;
}, 60_000);
afterAll(async () => {
  if (server) await stopChild(server.child);
});

const logLines = (): RequestLine[] => jsonLines<RequestLine>(server.stdout());

describe("profile data in the request log and the metrics", () => {
  it("never appears there, while every request is logged and counted by its route template", async () => {
    let requests = 0;
    const send = async (path: string, init: RequestInit = {}) => {
      requests++;
      return fetch(`${base}${path}`, init);
    };
    const keyed = (
      key: string,
      method: string,
      path: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ) =>
      send(path, {
        method,
        headers: {
          "x-api-key": key,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...extra,
        },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      });

    const issued = await send("/v1/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "reader@example.org", label: "privacy" }),
    });
    expect(issued.status).toBe(201);
    const key = ((await issued.json()) as { key: string }).key;

    const day = (await (await keyed(key, "GET", "/v1/me/picks?limit=25")).json()) as PersonalPicks;
    const [inLibrary, rated] = [day.items[20], day.items[3]];
    const followed = day.items[11]?.authors[0] as string;
    expect(inLibrary && rated && followed).toBeTruthy();

    const library = [
      inLibrary?.arxiv_id,
      { id: "privacy-1", type: "article", title: LIBRARY_TITLE, abstract: LIBRARY_ABSTRACT },
    ];
    expect((await keyed(key, "PUT", "/v1/me/library", library)).status).toBe(200);
    expect((await keyed(key, "PUT", `/v1/me/ratings/${rated?.arxiv_id}`, { rating: 1 })).status).toBe(200);
    const follows = { authors: [followed], phrases: [FOLLOWED_PHRASE] };
    expect((await keyed(key, "PUT", "/v1/me/follows", follows)).status).toBe(200);
    const list = (await (await keyed(key, "GET", "/v1/me/picks?limit=10")).json()) as PersonalPicks;
    expect(list.personal).toBe(true);
    expect((await keyed(key, "GET", "/v1/me/profile")).status).toBe(200);

    const replaced = ((await (await keyed(key, "POST", "/v1/me/feed-token")).json()) as { token: string })
      .token;
    const token = ((await (await keyed(key, "POST", "/v1/me/feed-token")).json()) as { token: string }).token;
    const atom = await send(`/v1/feeds/for-you/${token}.xml`);
    expect(atom.status).toBe(200);
    // The feed holds the list: the same titles the log and metrics must not.
    const feedText = await atom.text();
    expect(feedText).toContain(list.items[0]?.title.replace(/&/g, "&amp;").slice(0, 20));
    const etag = atom.headers.get("etag") as string;
    expect((await send(`/v1/feeds/for-you/${token}.json`)).status).toBe(200);
    expect(
      (await send(`/v1/feeds/for-you/${token}.xml`, { headers: { "if-none-match": etag } })).status,
    ).toBe(304);
    expect((await send(`/v1/feeds/for-you/${replaced}.xml`)).status).toBe(404);
    expect((await send(`/v1/feeds/for-you/${token}x.json`)).status).toBe(404);
    expect((await send(`/v1/feeds/for-you/${token}`)).status).toBe(404);

    const mcp = await keyed(
      key,
      "POST",
      "/mcp",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "labs_for_me", arguments: { limit: 5 } },
      },
      { accept: "application/json, text/event-stream" },
    );
    expect(mcp.status).toBe(200);
    const forMe = (await mcp.json()) as { result: { structuredContent: PersonalPicks } };
    expect(forMe.result.structuredContent.items.map((item) => item.title)).toEqual(
      list.items.slice(0, 5).map((item) => item.title),
    );
    expect((await keyed(key, "DELETE", `/v1/me/ratings/${rated?.arxiv_id}`)).status).toBe(200);

    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    const exposition = await metrics.text();

    // Every request above is in the log (lines are written at least once a second), by its template.
    expect(await waitFor(async () => logLines().length >= requests, true, 10_000)).toBe(true);
    const routes = new Set(logLines().map((line) => line.route));
    for (const route of [
      "/v1/me/library",
      "/v1/me/ratings/:arxiv_id",
      "/v1/me/follows",
      "/v1/me/picks",
      "/v1/me/feed-token",
      "/v1/feeds/for-you/:token.xml",
      "/v1/feeds/for-you/:token.json",
      "/mcp",
    ]) {
      expect(routes, route).toContain(route);
      expect(exposition).toContain(`route="${route}"`);
    }

    const secrets: Array<[string, string]> = [
      ["the API key", key],
      ["a library title", LIBRARY_TITLE],
      ["a library abstract", LIBRARY_ABSTRACT],
      ["a library paper's id", inLibrary?.arxiv_id as string],
      ["a library paper's title", inLibrary?.title as string],
      ["the rated paper's id", rated?.arxiv_id as string],
      ["the rated paper's title", rated?.title as string],
      ["a followed author", followed],
      ["a followed phrase", FOLLOWED_PHRASE],
      ["the feed token", token],
      ["the feed token's random part", token.slice(4, 24)],
      ["the replaced feed token", replaced.slice(4, 24)],
      ...list.items.map((item): [string, string] => ["a title of the personal list", item.title]),
    ];
    for (const [what, text] of secrets) {
      expect(text.length, what).toBeGreaterThan(8);
      expect(server.stdout().includes(text), `${what} in the request log`).toBe(false);
      expect(server.stderr().includes(text), `${what} on stderr`).toBe(false);
      expect(exposition.includes(text), `${what} in /metrics`).toBe(false);
    }
  }, 60_000);
});
