import type { H3 } from "h3";
import { z } from "zod";
import { TIERS } from "../../pipeline/domain/tiers.ts";
import { detail, json } from "../answers.ts";
import type { AppContext } from "../context.ts";
import { limitByIp } from "../ip-limit.ts";
import { route } from "../route-table.ts";
import { validateRequest } from "../validation/request.ts";
import { authorize, quotaHeaders } from "./keyed.ts";

/** POST /v1/keys: a self-issued free key. */
export const KeyIssueRequestSchema = z.object({
  email: z.string().min(3).max(120).describe("where to reach the key's owner"),
  label: z.string().min(1).max(80).describe("what the key is for, e.g. the application's name"),
});

const failed = (result: { status: number; body: string }) =>
  new Response(result.body, { status: result.status, headers: { "content-type": "application/json" } });

export function registerKeyRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/keys", {
    POST: async (event) => {
      const request = await validateRequest(event.req, { body: KeyIssueRequestSchema }, { url: event.url });
      if (!request.ok) return failed(request);
      const limit = context.config.keyIssueLimit;
      const ipLimit = await limitByIp(context, event, "keys", limit, context.config.keyIssueWindowSeconds);
      if (!ipLimit.allowed) {
        const at = new Date(ipLimit.resetsAt).toISOString();
        return detail(
          429,
          `This address already received ${limit === 1 ? "a key" : `${limit} keys`} in the last 24 hours; try again after ${at}.`,
          ipLimit.headers,
        );
      }
      const { email, label } = request.value.body;
      const { key, record } = await context.keys.issue({ tier: "free", email, label });
      return json(
        201,
        {
          key,
          key_id: record.id,
          tier: record.tier,
          limits: TIERS[record.tier],
          created_at: record.created_at,
          note: "Store this key now: it is shown only this once. Send it in the X-API-Key header.",
        },
        { ...ipLimit.headers, "cache-control": "no-store" },
      );
    },
  });

  route(app, "/v1/me", {
    GET: async (event) => {
      const record = await authorize(event, context);
      if (record instanceof Response) return record;
      // Reading one's own usage spends nothing.
      const usage = await context.keys.usage(record);
      return json(
        200,
        {
          key_id: record.id,
          tier: record.tier,
          label: record.label,
          created_at: record.created_at,
          limits: usage.limits,
          usage: {
            used: usage.used,
            remaining: usage.remaining,
            window_start: usage.window_start,
            resets_at: usage.resets_at,
          },
        },
        quotaHeaders(record, usage),
      );
    },
  });
}
