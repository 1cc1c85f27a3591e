import { HttpErrorSchema, HttpValidationErrorSchema } from "../../pipeline/domain/http-errors.ts";
import type { ResponseDoc } from "./response-doc.ts";

/** Answers many operations share; the document lists them once under components.responses. */
export const COMMON_RESPONSES = {
  BadRequest: {
    description: "The body could not be read: not valid text in its encoding, or JSON nested too deeply.",
    body: HttpErrorSchema,
  },
  Unauthorized: {
    description:
      "No usable API key: missing, malformed, unknown or revoked, or sent in the query string. " +
      "The detail says how to get one.",
    body: HttpErrorSchema,
  },
  ValidationFailed: {
    description: "Validation Error: every problem of the request, as FastAPI reports them.",
    body: HttpValidationErrorSchema,
  },
  TooManyRequests: {
    description:
      "The key's quota, a per-key rate or the client address's limit is spent; Retry-After says for how long.",
    body: HttpErrorSchema,
    headers: { "Retry-After": true, RateLimit: true, "RateLimit-Policy": true },
  },
  StoreUnavailable: {
    description: "The key and usage store is unreachable; the snapshot endpoints keep working.",
    body: HttpErrorSchema,
    headers: { "Retry-After": true },
  },
} as const satisfies Record<string, ResponseDoc>;

export type CommonResponseName = keyof typeof COMMON_RESPONSES;

/**
 * The 413 of an operation whose body may be at most `maxBytes`: each POST names its own cap, so this is
 * the operation's rather than a shared component.
 */
export function payloadTooLarge(maxBytes: number): ResponseDoc {
  return {
    description: `The body is larger than ${maxBytes / 1024} KiB (${maxBytes} bytes), the most this operation reads.`,
    body: HttpErrorSchema,
  };
}
