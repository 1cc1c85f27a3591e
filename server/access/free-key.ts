import type { H3Event } from "h3";
import { type KeyIssueRequest, KeyIssueRequestSchema } from "../../pipeline/domain/key-request.ts";
import type { AppContext } from "../context.ts";
import { type Validated, validateValue } from "../validation/validate.ts";
import { limitByIp } from "./ip-limit.ts";
import type { KeyRecord } from "./key-service.ts";

// The one way a free key is issued, whether a program asks (POST /v1/keys) or a person on the OAuth
// consent page: the same request rules, and one key per client address per KEY_ISSUE window, counted
// together.

export type FreeKeyResult =
  | { ok: true; key: string; record: KeyRecord; headers: Record<string, string> }
  /** This address already had its keys for the window: the RateLimit headers and Retry-After say when. */
  | { ok: false; headers: Record<string, string>; resetsAt: number };

/** A request checked as POST /v1/keys checks its body (pydantic's lax rules, lengths in code points). */
export const checkFreeKeyRequest = (input: unknown): Validated<KeyIssueRequest> =>
  validateValue(KeyIssueRequestSchema, input, ["body"]);

/** Issues a free key for a checked request, if the caller's address has one left in the window. */
export async function issueFreeKey(
  context: AppContext,
  event: H3Event,
  request: KeyIssueRequest,
): Promise<FreeKeyResult> {
  const limit = await limitByIp(
    context,
    event,
    "keys",
    context.config.keyIssueLimit,
    context.config.keyIssueWindowSeconds,
  );
  if (!limit.allowed) return { ok: false, headers: limit.headers, resetsAt: limit.resetsAt };
  const { key, record } = await context.keys.issue({
    tier: "free",
    email: request.email,
    label: request.label,
  });
  return { ok: true, key, record, headers: limit.headers };
}
