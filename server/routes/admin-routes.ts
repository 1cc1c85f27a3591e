import { timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { H3, H3Event } from "h3";
import { FastResponse } from "srvx";
import { z } from "zod";
import { TierNameSchema } from "../../pipeline/domain/tiers.ts";
import { json, notFound } from "../answers.ts";
import type { AppContext } from "../context.ts";
import type { KeyRecord } from "../keys/key-service.ts";
import { route } from "../route-table.ts";
import { validateRequest } from "../validation/request.ts";

// The operator's channel to a running server that owns the embedded file store, which no second
// process may open: `picks keys` reads the token from the state folder and sends its command here.
// Loopback sockets only, a bearer token compared in constant time, and a plain 404 otherwise, so the
// route is invisible to anyone else. Not part of the public API (nor of its OpenAPI document).

export const AdminKeyCommandSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("list") }),
  z.object({
    action: z.literal("issue"),
    tier: TierNameSchema,
    email: z.string().min(3).max(120),
    label: z.string().min(1).max(80),
  }),
  z.object({ action: z.literal("revoke"), key: z.string().min(1).max(200) }),
  z.object({ action: z.literal("rotate"), key: z.string().min(1).max(200) }),
]);
export type AdminKeyCommand = z.infer<typeof AdminKeyCommandSchema>;

const LOOPBACK = (address: string) =>
  address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");

function allowed(event: H3Event, token: string | undefined): boolean {
  if (!token) return false;
  const socket = (event.req as { ip?: string }).ip ?? "";
  if (isIP(socket) === 0 || !LOOPBACK(socket)) return false;
  const given = Buffer.from(event.req.headers.get("authorization") ?? "");
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Without the hash: even the operator's channel never carries it. */
const withoutHash = ({ hash: _hash, ...record }: KeyRecord) => record;

export function registerAdminRoutes(app: H3, context: AppContext): void {
  route(app, "/_admin/keys", {
    POST: async (event) => {
      if (!allowed(event, context.adminToken)) return notFound();
      const request = await validateRequest(event.req, { body: AdminKeyCommandSchema }, { url: event.url });
      if (!request.ok) {
        return new FastResponse(request.body, {
          status: request.status,
          headers: { "content-type": "application/json" },
        });
      }
      const command = request.value.body;
      const keys = context.keys;
      switch (command.action) {
        case "list":
          return json(200, { records: (await keys.list()).map(withoutHash) });
        case "issue": {
          const { key, record } = await keys.issue(command);
          return json(200, { key, record: withoutHash(record) });
        }
        case "revoke": {
          const record = await keys.revoke(command.key);
          return json(200, { record: record && withoutHash(record) });
        }
        case "rotate": {
          const rotated = await keys.rotate(command.key);
          if (!rotated) return json(200, { rotated: null });
          return json(200, {
            key: rotated.key,
            record: withoutHash(rotated.record),
            old: withoutHash(rotated.old),
          });
        }
      }
    },
  });
}
