import type { H3 } from "h3";
import { VerifyRequestSchema } from "../../pipeline/domain/verify-request.ts";
import { detail, json } from "../answers.ts";
import type { AppContext } from "../context.ts";
import { limitByIp } from "../ip-limit.ts";
import { route } from "../route-table.ts";
import { validateRequest } from "../validation/request.ts";
import { verifyMessage } from "../verify/verify-message.ts";

const HOUR = 3600;

/** POST /v1/verify: the free pre-send check, limited per client address. */
export function registerVerifyRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/verify", {
    POST: async (event) => {
      const request = await validateRequest(
        event.req,
        { body: VerifyRequestSchema },
        { url: event.url, maxBytes: context.config.maxBodyBytes },
      );
      if (!request.ok) {
        return new Response(request.body, {
          status: request.status,
          headers: { "content-type": "application/json" },
        });
      }
      const limit = await limitByIp(context, event, "verify", context.config.verifyLimit, HOUR);
      if (!limit.allowed) {
        return detail(
          429,
          `Rate limit: ${context.config.verifyLimit} verifications per hour per client address; ` +
            `try again after ${new Date(limit.resetsAt).toISOString()}.`,
          limit.headers,
        );
      }
      const result = await verifyMessage(request.value.body, {
        now: new Date(context.now()),
        semantic: context.semantic,
      });
      return json(200, result, limit.headers);
    },
  });
}
