// The response headers the API sends, described once. Patterns follow what the server writes
// (server/access/rate-limit-headers.ts, server/http/prepared.ts), so the contract test checks the values too.

export interface HeaderSpec {
  description: string;
  schema: { type: "string" | "integer"; pattern?: string; minimum?: number };
}

export const HEADERS = {
  ETag: {
    description: "Strong validator of the body's bytes; send it back in If-None-Match to get a 304.",
    schema: { type: "string", pattern: '^"[\\w-]+"$' },
  },
  "Cache-Control": {
    description: "Whether and how long caches may keep the answer.",
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      "IETF RateLimit (draft-ietf-httpapi-ratelimit-headers): the policy's name, the calls remaining " +
      "(r) and the seconds until the window resets (t); a list when two policies apply (POST /mcp).",
    schema: { type: "string", pattern: '^"[a-z-]+";r=\\d+;t=\\d+(, "[a-z-]+";r=\\d+;t=\\d+)*$' },
  },
  "RateLimit-Policy": {
    description:
      "IETF RateLimit-Policy: the policy's name, its quota (q) and its window in seconds (w); a list " +
      "when two policies apply.",
    schema: { type: "string", pattern: '^"[a-z-]+";q=\\d+;w=\\d+(, "[a-z-]+";q=\\d+;w=\\d+)*$' },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", minimum: 0 },
  },
  "WWW-Authenticate": {
    description: "The authentication scheme to use: a Bearer token (the API key).",
    schema: { type: "string", pattern: "^Bearer " },
  },
  Location: {
    description: "Where to poll for the result.",
    schema: { type: "string" },
  },
} as const satisfies Record<string, HeaderSpec>;

export type HeaderName = keyof typeof HEADERS;
