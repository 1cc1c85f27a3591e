// The endpoints the bench loads, in one place: the tail section and the profile drive the same requests.
import type { LoadOptions } from "./load.ts";

export interface Target {
  name: string;
  url: string;
  options: LoadOptions;
}

export const VERIFY_BODY = JSON.stringify({
  subject: "Quarterly evaluation notes",
  body: "The evaluation covered the holdout split and the audit log. ".repeat(170).slice(0, 10_000),
  recipient: "priya.raman@northwind-labs.com",
  options: { llm_check: false },
});

export const MCP_PAPERS_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "labs_papers", arguments: { days: 7, compact: true } },
});

export const TARGETS = {
  latest: (base: string): Target => ({
    name: "GET /v1/daily/latest",
    url: `${base}/v1/daily/latest`,
    options: {},
  }),
  papers: (base: string, key: string): Target => ({
    name: "GET /v1/papers?days=7, enterprise key",
    url: `${base}/v1/papers?days=7`,
    options: { headers: { "x-api-key": key } },
  }),
  mcp: (base: string, key: string): Target => ({
    name: "POST /mcp tools/call labs_papers (days 7, compact), enterprise key",
    url: `${base}/mcp`,
    options: {
      method: "POST",
      body: MCP_PAPERS_CALL,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        "x-api-key": key,
      },
    },
  }),
  verify: (base: string): Target => ({
    name: "POST /v1/verify, 10,000-character body",
    url: `${base}/v1/verify`,
    options: { method: "POST", body: VERIFY_BODY, headers: { "content-type": "application/json" } },
  }),
} as const;

export type TargetName = keyof typeof TARGETS;
