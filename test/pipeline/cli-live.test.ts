import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { arxivInterval } from "../../cli/curate-live.ts";
import type { RunRecord } from "../../pipeline/domain/run-record.ts";
import {
  type FakeReply,
  fixtureText,
  type SeenRequest,
  wrappedBody,
  xmlReply,
} from "../helpers/fake-upstream.ts";
import { useFakeUpstream } from "../helpers/fake-upstream-hooks.ts";
import { LISTING_250 } from "../helpers/fixtures.ts";

const run = promisify(execFile);
const PICKS = fileURLToPath(new URL("../../bin/picks.js", import.meta.url));
const LIVE_VARS = [
  "ARXIV_LISTING_URL",
  "ARXIV_API_URL",
  "ARXIV_MIN_INTERVAL_MS",
  "S2_API_URL",
  "S2_API_KEY",
  "OPENALEX_URL",
  "OPENALEX_API_KEY",
  "LLM_BASE_URL",
  "LLM_API_KEY",
  "LLM_MODEL",
  "PICKS_CONTACT",
];

const fake = useFakeUpstream();

async function picks(args: string[], env: Record<string, string>) {
  const root = await mkdtemp(join(tmpdir(), "picks-live-"));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !LIVE_VARS.includes(name)));
  const dirs = ["--out", join(root, "public"), "--runs", join(root, "runs")];
  try {
    const { stdout, stderr } = await run(process.execPath, [PICKS, "curate", ...args, ...dirs], {
      env: { ...clean, ...env },
    });
    return { code: 0, stdout, stderr, root };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, root };
  }
}

const RECORD = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json")[1] as object;
const s2 = (request: SeenRequest): FakeReply => ({
  body: JSON.stringify((JSON.parse(request.body) as { ids: string[] }).ids.map(() => RECORD)),
});

describe("picks curate with live sources, against fake upstreams", () => {
  it("curates the day the arXiv listing holds (`--source arxiv` is the default)", async () => {
    fake.route("GET", "/atom/cs.AI", { body: fixtureText("arxiv/atom-listing-cs.AI-7-entries.xml") });
    fake.route("GET", "/api/query", xmlReply("arxiv/api-id-list-empty-feed.xml"));
    fake.route("POST", "/graph/v1/paper/batch", s2);
    const result = await picks(["--categories", "cs.AI", "--min-total", "0", "--json"], {
      ARXIV_LISTING_URL: `${fake.url}/atom`,
      ARXIV_API_URL: `${fake.url}/api/query`,
      ARXIV_MIN_INTERVAL_MS: "0",
      S2_API_URL: `${fake.url}/graph/v1`,
      OPENALEX_URL: fake.url,
      PICKS_CONTACT: "ops@example.org",
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.date).toBe("2025-08-20");
    expect(summary.counts.screened).toBe(7);
    expect(fake.requests[0]?.headers["user-agent"]).toBe("Research-Picks/0.1.0 (mailto:ops@example.org)");
    // One listing request: learning the day and loading it share it.
    expect(fake.seen("/atom/cs.AI")).toHaveLength(1);
    const record = JSON.parse(
      await readFile(join(result.root, "runs", "2025-08-20.json"), "utf8"),
    ) as RunRecord;
    expect(record.source).toBe("arxiv:cs.AI");
    expect(record.source_notes[0]).toContain("7 entries (5 cross, 2 new)");
    expect(record.http.by_upstream.arxiv).toEqual({ requests: 2, retries: 0, failures: 0 });
    // With no rubric floor, the day's six best-ranked of its seven papers are kept.
    // Which six, not their order: the ranking belongs to the model, and the selection tests cover it.
    expect(summary.picks.map((pick: { arxiv_id: string }) => pick.arxiv_id).sort()).toEqual([
      "2508.13426",
      "2508.13428",
      "2508.13429",
      "2508.13435",
      "2508.14001",
      "2508.14002",
    ]);
    expect(record.citations).toMatchObject({
      status: "done",
      papers: 6,
      found_semantic_scholar: 6,
      missing: 0,
    });
    expect(summary.picks[0].citations).toMatchObject({
      status: "found",
      source: "semantic_scholar",
      citation_count: 10670,
    });
    expect(fake.seen("/graph/v1/paper/batch")).toHaveLength(1);
  });

  it("keeps the sample offline: no request even with every upstream URL but the citation ones set", async () => {
    const result = await picks(["--source", "sample", "--json"], {
      ARXIV_LISTING_URL: `${fake.url}/atom`,
      ARXIV_API_URL: `${fake.url}/api/query`,
      LLM_BASE_URL: `${fake.url}/v1`,
      LLM_MODEL: "m",
    });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.citations.reason).toBe(
      "offline source (sample): set S2_API_URL or OPENALEX_URL to look citations up",
    );
    expect(summary.http.requests).toBe(0);
    expect(summary.picks.every((pick: { citations: unknown }) => pick.citations === null)).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it("looks citations up for a file source only at the configured index", async () => {
    fake.route("POST", "/graph/v1/paper/batch", s2);
    const result = await picks(["--source", `file:${LISTING_250}`, "--json"], {
      S2_API_URL: `${fake.url}/graph/v1`,
    });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.citations).toMatchObject({ status: "done", found_semantic_scholar: summary.picks.length });
    expect(fake.requests.map((request) => request.path)).toEqual(["/graph/v1/paper/batch"]);
  });

  it("fails cleanly when the listing does not come, publishing nothing", async () => {
    fake.route("GET", "/atom/cs.AI", { status: 503, body: "Service Unavailable" });
    const result = await picks(["--categories", "cs.AI", "--date", "2025-08-20"], {
      ARXIV_LISTING_URL: `${fake.url}/atom`,
      ARXIV_API_URL: `${fake.url}/api/query`,
      ARXIV_MIN_INTERVAL_MS: "0",
      PICKS_HTTP_RETRIES: "1",
      PICKS_HTTP_BACKOFF_MS: "1",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("failed after 2 attempts: HTTP 503");
    expect(result.stderr).toContain("nothing was published");
    await expect(readdir(join(result.root, "public"))).rejects.toThrow();
  });

  it.each([
    [
      ["--judge", "llm", "--source", "sample"],
      "`--judge llm` needs LLM_BASE_URL and LLM_MODEL in the environment",
    ],
    [["--judge", "gpt"], "Expected `--judge` to be `rules` or `llm`, got `gpt`"],
    [["--source", "sample", "--categories", "cs.AI"], "`--categories` applies only to `--source arxiv`"],
    [
      ["--categories", "cs.AI,<script>"],
      "Expected `--categories` to be arXiv categories such as cs.AI,cs.LG",
    ],
  ])("picks curate %j exits 2: %s", async (args, message) => {
    const result = await picks(args, {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("arXiv politeness", () => {
  it.each([
    [{}, "https://rss.arxiv.org/atom", 3000],
    [{ ARXIV_MIN_INTERVAL_MS: "10" }, "https://rss.arxiv.org/atom", 3000],
    [{ ARXIV_MIN_INTERVAL_MS: "5000" }, "https://rss.arxiv.org/atom", 5000],
    [{ ARXIV_MIN_INTERVAL_MS: "10" }, "http://127.0.0.1:9/atom", 10],
  ])("env %j with listing %s spaces requests %i ms", (env, listing, expected) => {
    const api = listing.includes("arxiv.org")
      ? "https://export.arxiv.org/api/query"
      : "http://127.0.0.1:9/api";
    expect(arxivInterval(env, listing, api)).toBe(expected);
  });
});
