import type { H3, H3Event } from "h3";
import { HttpErrorSchema } from "../../pipeline/domain/http-errors.ts";
import { TIER_NAMES } from "../../pipeline/domain/tiers.ts";
import {
  DailyPublishedPayloadSchema,
  DeliveryListSchema,
  DeliveryPathSchema,
  DeliveryQueuedSchema,
  MAX_WEBHOOKS_PER_KEY,
  WebhookCreateSchema,
  WebhookEndpointSchema,
  WebhookListSchema,
  WebhookPathSchema,
  WebhookSecretSchema,
} from "../../pipeline/domain/webhook.ts";
import { limitByKey, mergedRateHeaders, rateRefusal } from "../access/key-limit.ts";
import type { KeyRecord } from "../access/key-service.ts";
import { authorize } from "../access/keyed.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { AppContext } from "../context.ts";
import { detail, json, jsonText } from "../http/answers.ts";
import { pathParam, route } from "../http/route-table.ts";
import type { EventDoc } from "../openapi/build-document.ts";
import { payloadTooLarge } from "../openapi/common-responses.ts";
import type { OperationDoc, PathDoc } from "../openapi/operation.ts";
import { perKeyText } from "../openapi/rate-limits.ts";
import type { ResponseDoc } from "../openapi/response-doc.ts";
import { validationErrorBody, valueError } from "../validation/errors.ts";
import { validateRequest } from "../validation/request.ts";

/** A create body is a url, two event names and a short note: 8 KiB is plenty. */
const WEBHOOK_BODY_MAX_BYTES = 8 * 1024;

const PAID_TIERS = TIER_NAMES.filter((tier) => tier !== "free");
const DOCS = "See the README's Webhooks section.";

const forbidden: ResponseDoc = {
  description: "A free key: webhooks are for the paid tiers.",
  body: HttpErrorSchema,
};
const unknown: ResponseDoc = {
  description: "No webhook with this id belongs to the key (another key's is unknown too).",
  body: HttpErrorSchema,
};
const ACTION_RATE =
  "Free of quota, but each sends a signed POST and keeps its record for two weeks, so tests and " +
  "manual retries together have two rates: " +
  perKeyText("per endpoint", DEFAULT_CONFIG.webhookActionEndpointRate, "WEBHOOK_ENDPOINT_ACTION_RATE_LIMIT") +
  " And " +
  perKeyText("per key, all its endpoints", DEFAULT_CONFIG.webhookActionKeyRate, "WEBHOOK_ACTION_RATE_LIMIT");
const rateHeaders = { RateLimit: true, "RateLimit-Policy": true } as const;

const keyedOp = (op: Omit<OperationDoc, "tags" | "keyed">): OperationDoc => ({
  ...op,
  tags: ["webhooks"],
  keyed: true,
  rateLimit: op.rateLimit ?? "Free of quota: managing webhooks spends no calls.",
  responses: { 401: "Unauthorized", 403: forbidden, 503: "StoreUnavailable", ...op.responses },
});

/** The operations of this file, for the OpenAPI document. */
/** The events the service sends, as the document's `webhooks`. */
export const webhookEvents: readonly EventDoc[] = [
  {
    event: "daily.published",
    operationId: "dailyPublished",
    summary: "A new day was published",
    description:
      "Sent to each endpoint subscribed to `daily.published` when a new day appears. Signed as Standard " +
      "Webhooks specifies (`webhook-id`: the same on every retry; `webhook-timestamp`; `webhook-signature`: " +
      "`v1,<base64 HMAC-SHA256 of {id}.{timestamp}.{body}>`). `data.for_you` is present only in " +
      "deliveries to endpoints of a key that has a reader profile (`/v1/me/...`): the head of that key's " +
      "personal list of the day, ranked when the day was announced; every retry sends the same body. " +
      "Other keys' deliveries carry the event's body without it.",
    body: DailyPublishedPayloadSchema,
  },
];

export const webhookPaths: readonly PathDoc[] = [
  {
    route: "/v1/webhooks",
    post: keyedOp({
      operationId: "createWebhook",
      summary: "Register a webhook endpoint",
      description:
        "Events are POSTed to `url`, signed as Standard Webhooks specifies (`webhook-id`, " +
        "`webhook-timestamp`, `webhook-signature`), and retried with backoff for about a day until a " +
        `2xx answers. The signing \`secret\` is shown only in this answer. At most ${MAX_WEBHOOKS_PER_KEY} a key.`,
      body: WebhookCreateSchema,
      responses: {
        201: {
          description: "Registered; keep the secret.",
          body: WebhookSecretSchema,
          headers: { Location: true, "Cache-Control": true },
        },
        400: "BadRequest",
        409: { description: `The key already has ${MAX_WEBHOOKS_PER_KEY} webhooks.`, body: HttpErrorSchema },
        413: payloadTooLarge(WEBHOOK_BODY_MAX_BYTES),
        422: "ValidationFailed",
        503: {
          description: "Other webhooks of the key were being created for several seconds; try again.",
          body: HttpErrorSchema,
          headers: { "Retry-After": true },
        },
      },
    }),
    get: keyedOp({
      operationId: "listWebhooks",
      summary: "Your webhook endpoints",
      description: "The key's endpoints, oldest first, without their secrets.",
      responses: { 200: { description: "The endpoints.", body: WebhookListSchema } },
    }),
  },
  {
    route: "/v1/webhooks/:webhook_id",
    get: keyedOp({
      operationId: "getWebhook",
      summary: "One webhook endpoint",
      description: "The endpoint without its secret; `status` says whether failures disabled it, and why.",
      path: WebhookPathSchema,
      responses: { 200: { description: "The endpoint.", body: WebhookEndpointSchema }, 404: unknown },
    }),
    delete: keyedOp({
      operationId: "deleteWebhook",
      summary: "Delete a webhook endpoint",
      description: "Nothing more is sent to it; deliveries still queued are dropped.",
      path: WebhookPathSchema,
      responses: { 204: { description: "Deleted." }, 404: unknown },
    }),
  },
  {
    route: "/v1/webhooks/:webhook_id/rotate-secret",
    post: keyedOp({
      operationId: "rotateWebhookSecret",
      summary: "Rotate the signing secret",
      description:
        "A new secret, shown only in this answer. For 24 hours both sign every delivery (two `v1,` " +
        "signatures in `webhook-signature`), so receivers can switch without missing one.",
      path: WebhookPathSchema,
      responses: {
        200: {
          description: "The new secret.",
          body: WebhookSecretSchema,
          headers: { "Cache-Control": true },
        },
        404: unknown,
      },
    }),
  },
  {
    route: "/v1/webhooks/:webhook_id/test",
    post: keyedOp({
      operationId: "testWebhook",
      summary: "Send a test event",
      description:
        "Queues a `webhook.test` event to this endpoint, delivered and retried like any other. A delivered " +
        "test enables an endpoint that failures disabled.",
      path: WebhookPathSchema,
      rateLimit: ACTION_RATE,
      responses: {
        202: { description: "Queued.", body: DeliveryQueuedSchema, headers: rateHeaders },
        404: unknown,
        429: "TooManyRequests",
      },
    }),
  },
  {
    route: "/v1/webhooks/:webhook_id/deliveries",
    get: keyedOp({
      operationId: "listWebhookDeliveries",
      summary: "Recent delivery attempts",
      description:
        "The latest attempts, newest first: event id and type, the status answered or the error, the " +
        "duration and when the next retry is due.",
      path: WebhookPathSchema,
      responses: { 200: { description: "The attempts.", body: DeliveryListSchema }, 404: unknown },
    }),
  },
  {
    route: "/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry",
    post: keyedOp({
      operationId: "retryWebhookDelivery",
      summary: "Send a delivery again",
      description: "Queues the delivery now, delivered or not; its retry schedule starts over.",
      path: DeliveryPathSchema,
      rateLimit: ACTION_RATE,
      responses: {
        202: { description: "Queued.", body: DeliveryQueuedSchema, headers: rateHeaders },
        404: { description: "No such delivery of this key's webhook.", body: HttpErrorSchema },
        429: "TooManyRequests",
      },
    }),
  },
];

type Keyed = { record: KeyRecord } | { refused: Response };

/** The caller's key, if it may use webhooks: a 401 without a usable key, a 403 on the free tier. */
async function paidKey(event: H3Event, context: AppContext): Promise<Keyed> {
  const record = await authorize(event, context);
  if (record instanceof Response) return { refused: record };
  if (record.tier === "free") {
    return {
      refused: detail(
        403,
        `Webhooks are available on the ${PAID_TIERS.join(", ")} tiers; this key is on the free tier. ${DOCS}`,
      ),
    };
  }
  return { record };
}

/**
 * Counts one test or manual retry against the key's rate and the endpoint's: each sends a signed
 * POST and keeps its record two weeks, so neither may be free. The RateLimit headers of both, or the 429.
 */
async function limitAction(
  context: AppContext,
  keyId: string,
  endpointId: string,
): Promise<Record<string, string> | Response> {
  const { webhookActionEndpointRate: perEndpoint, webhookActionKeyRate: perKey } = context.config;
  const endpoint = await limitByKey(context, perEndpoint, endpointId);
  if (!endpoint.allowed)
    return rateRefusal(endpoint, `tests and retries of webhook ${endpointId}`, perEndpoint);
  const key = await limitByKey(context, perKey, keyId);
  if (!key.allowed) return rateRefusal(key, "webhook tests and retries for this key", perKey);
  return mergedRateHeaders(key.headers, endpoint.headers);
}

const noSuchWebhook = (id: string) => detail(404, `No webhook with id ${id}`);

/** The path's webhook id: any text, since an id of the wrong form is merely unknown. */
function webhookId(event: H3Event): { id: string } {
  return { id: pathParam(event, "webhook_id") };
}

/** POST /v1/webhooks: registers an endpoint and shows its signing secret, once. */
async function createWebhook(context: AppContext, event: H3Event): Promise<Response> {
  // The key first: a client without one learns nothing of the body's checks (413, 422).
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const request = await validateRequest(
    event.req,
    { body: WebhookCreateSchema },
    { url: event.url, maxBytes: WEBHOOK_BODY_MAX_BYTES },
  );
  if (!request.ok) return jsonText(request);
  const body = request.value.body;
  const created = await context.webhooks.create(key.record.id, body);
  if (!created.ok) {
    if (created.why.startsWith("limit:")) {
      return detail(409, `This key already has ${MAX_WEBHOOKS_PER_KEY} webhooks; delete one first.`);
    }
    if (created.why.startsWith("busy:")) {
      return detail(503, "Other webhooks of this key are being created; try again in a moment.", {
        "retry-after": "1",
      });
    }
    const issue = valueError(["body", "url"], body.url, created.why);
    return jsonText({ status: 422, body: validationErrorBody([issue]) });
  }
  return json(
    201,
    { ...created.view, secret: created.secret },
    { location: `/v1/webhooks/${created.view.id}`, "cache-control": "no-store" },
  );
}

/** GET /v1/webhooks: the key's endpoints. */
async function listWebhooks(context: AppContext, event: H3Event): Promise<Response> {
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  return json(200, { webhooks: await context.webhooks.list(key.record.id) }, { "cache-control": "no-store" });
}

/** GET /v1/webhooks/{webhook_id}. */
async function getWebhook(context: AppContext, event: H3Event): Promise<Response> {
  const path = webhookId(event);
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const view = await context.webhooks.get(key.record.id, path.id);
  return view ? json(200, view, { "cache-control": "no-store" }) : noSuchWebhook(path.id);
}

/** DELETE /v1/webhooks/{webhook_id}. */
async function deleteWebhook(context: AppContext, event: H3Event): Promise<Response> {
  const path = webhookId(event);
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  if (!(await context.webhooks.remove(key.record.id, path.id))) return noSuchWebhook(path.id);
  return new Response(null, { status: 204 });
}

/** POST /v1/webhooks/{webhook_id}/rotate-secret. */
async function rotateSecret(context: AppContext, event: H3Event): Promise<Response> {
  const path = webhookId(event);
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const rotated = await context.webhooks.rotate(key.record.id, path.id);
  if (!rotated) return noSuchWebhook(path.id);
  return json(200, { ...rotated.view, secret: rotated.secret }, { "cache-control": "no-store" });
}

/** POST /v1/webhooks/{webhook_id}/test: queues a webhook.test event, under the action rates. */
async function testWebhook(context: AppContext, event: H3Event): Promise<Response> {
  const path = webhookId(event);
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const { webhooks } = context;
  if (!(await webhooks.get(key.record.id, path.id))) return noSuchWebhook(path.id);
  const limited = await limitAction(context, key.record.id, path.id);
  if (limited instanceof Response) return limited;
  const sent = await webhooks.sendTest(key.record.id, path.id);
  if (!sent) return noSuchWebhook(path.id);
  return json(
    202,
    {
      delivery_id: sent.deliveryId,
      event_id: sent.eventId,
      event_type: "webhook.test",
      note: "Queued; its attempts appear in the deliveries list.",
    },
    limited,
  );
}

/** GET /v1/webhooks/{webhook_id}/deliveries. */
async function listDeliveries(context: AppContext, event: H3Event): Promise<Response> {
  const path = webhookId(event);
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const attempts = await context.webhooks.attempts(key.record.id, path.id);
  if (!attempts) return noSuchWebhook(path.id);
  return json(200, { webhook_id: path.id, attempts }, { "cache-control": "no-store" });
}

/** POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry, under the action rates. */
async function retryDelivery(context: AppContext, event: H3Event): Promise<Response> {
  const webhook_id = pathParam(event, "webhook_id");
  const delivery_id = pathParam(event, "delivery_id");
  const key = await paidKey(event, context);
  if ("refused" in key) return key.refused;
  const { webhooks } = context;
  const noSuchDelivery = () => detail(404, `No delivery ${delivery_id} of webhook ${webhook_id}`);
  if (!(await webhooks.get(key.record.id, webhook_id))) return noSuchDelivery();
  const limited = await limitAction(context, key.record.id, webhook_id);
  if (limited instanceof Response) return limited;
  const queued = await webhooks.retry(key.record.id, webhook_id, delivery_id);
  if (!queued) return noSuchDelivery();
  return json(
    202,
    {
      delivery_id,
      event_id: queued.event_id,
      event_type: queued.event_type,
      note: "Queued again; its attempts appear in the deliveries list.",
    },
    limited,
  );
}

/** Webhook endpoints of paid keys: registered here, delivered by the webhook worker. */
export function registerWebhookRoutes(app: H3, context: AppContext): void {
  route(app, "/v1/webhooks", {
    POST: (event) => createWebhook(context, event),
    GET: (event) => listWebhooks(context, event),
  });
  route(app, "/v1/webhooks/:webhook_id", {
    GET: (event) => getWebhook(context, event),
    DELETE: (event) => deleteWebhook(context, event),
  });
  route(app, "/v1/webhooks/:webhook_id/rotate-secret", { POST: (event) => rotateSecret(context, event) });
  route(app, "/v1/webhooks/:webhook_id/test", { POST: (event) => testWebhook(context, event) });
  route(app, "/v1/webhooks/:webhook_id/deliveries", { GET: (event) => listDeliveries(context, event) });
  route(app, "/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry", {
    POST: (event) => retryDelivery(context, event),
  });
}
