import type { H3 } from "h3";
import { FastResponse } from "srvx";
import type { AppContext } from "../context.ts";
import { route } from "../http/route-table.ts";
import { scrapeText } from "../metrics/cluster-metrics.ts";
import { answerMetrics } from "../metrics/metrics-endpoint.ts";
import { metricsOnMainPort } from "../metrics/metrics-settings.ts";

/**
 * GET /metrics on the public port, only with METRICS_TOKEN and only to its bearer: an operator's
 * endpoint, left out of the OpenAPI document. Without a token it is not registered (404 like any
 * unknown path); METRICS_PORT serves it on a listener of its own instead.
 */
export function registerMetricsRoute(app: H3, context: AppContext): void {
  const settings = context.config.metrics;
  if (!metricsOnMainPort(settings)) return;
  const token = settings.token;
  const scrape = () => scrapeText(context.metrics.registry);
  route(app, "/metrics", {
    GET: async (event) => {
      const answer = await answerMetrics(event.req.headers.get("authorization"), token, scrape);
      return new FastResponse(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
}
