import type { H3 } from "h3";
import { FastResponse } from "srvx";
import { route } from "../http/route-table.ts";
import { answerMetrics } from "../metrics/metrics-endpoint.ts";
import { type MetricsSettings, metricsOnMainPort } from "../metrics/metrics-settings.ts";

/**
 * GET /metrics on the public port, only with METRICS_TOKEN and only to its bearer: an operator's
 * endpoint, left out of the OpenAPI document. Without a token it is not registered (404 like any
 * unknown path); METRICS_PORT serves it on a listener of its own instead.
 */
export function registerMetricsRoute(app: H3, settings: MetricsSettings): void {
  if (!metricsOnMainPort(settings)) return;
  const token = settings.token;
  route(app, "/metrics", {
    GET: async (event) => {
      const answer = await answerMetrics(event.req.headers.get("authorization"), token);
      return new FastResponse(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
}
