import type { DocumentInfo } from "./build-document.ts";

/** The API's version: DESIGN §5 fixes it at 0.1.0, apart from the package's version. */
const API_VERSION = "0.1.0";

/** What the document says about the API as a whole. */
export const DOCUMENT_INFO: DocumentInfo = {
  title: "Research-Picks API",
  version: API_VERSION,
  summary: "Daily-curated AI research picks, scored on a published rubric, with their evidence.",
  description: [
    "Every morning the day's arXiv announcements are scored on a published nine-axis rubric (A1..A9, " +
      "0..5 each) and REG FIT (1..3); the few that clear the bar are published with the evidence behind " +
      "every score and their citation data.",
    '**Conventions.** Answers have FastAPI\'s shapes. An error is `{"detail": "..."}`; a request that ' +
      "fails validation is a 422 `HTTPValidationError` listing every problem, in the order path, query, " +
      'header, body. An unknown path is a 404 `{"detail":"Not Found"}`, a method a path does not take ' +
      'a 405 `{"detail":"Method Not Allowed"}` with `Allow`. Every GET also answers HEAD. A body ' +
      "larger than its operation takes (4 KiB for a key, 16 KiB for a submission, 64 KiB for a " +
      "verification) is a 413, answered as soon as the size is known.",
    "**Snapshots.** `/v1/daily/...`, `/v1/recent`, `/v1/stats`, `/v1/axes` and `/v1/ranker` are published files: a " +
      "static host or CDN serves the same bytes at the same paths, with ETag and Cache-Control.",
    "**Keys and limits.** Keyed operations take the `X-API-Key` header, never the query string. Quotas " +
      "and per-address limits are announced in the IETF `RateLimit-Policy` and `RateLimit` headers; a " +
      "spent one is a 429 with `Retry-After`. While the key and usage store is unreachable, the " +
      "operations that need it answer 503 with `Retry-After`.",
  ].join("\n\n"),
  tags: {
    health: "Whether the instance is up.",
    snapshots: "The published files. No key, no limit.",
    keys: "Self-issued API keys and their usage.",
    papers: "Keyed queries over the published picks.",
    verify: "The pre-send verification playground.",
    submissions: "Agent runtimes put forward for scoring on the rubric, and their leaderboard.",
    webhooks: "Signed pushes (Standard Webhooks) when a day is published or a submission is scored.",
    reference: "This description and its interactive reference.",
    mcp: "The MCP server for agents, over Streamable HTTP.",
    readers:
      "A reader's profile per key (library, ratings, follows), their personal list of each day, its export and erasure.",
    bench:
      "Bench-as-a-Service: a firm's watchlist, its own rubric, its daily views and weekly notes (bench keys only).",
  },
};
