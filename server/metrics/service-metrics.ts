import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { TIER_NAMES, type TierName } from "../../pipeline/domain/tiers.ts";
import { VERDICTS, type Verdict } from "../../pipeline/domain/verify-request.ts";

// A server's metrics, one registry per app (createServiceMetrics, on its AppContext): two apps in one
// process count apart. Every label value is a route template or one of the fixed lists below, never
// text from a request: a client cannot make a new series.

/** The hosted MCP's tools; a name outside this list is counted as "unknown". */
const KNOWN_TOOLS = ["labs_papers", "labs_paper", "labs_axes", "labs_stats", "labs_for_me"] as const;
const TOOL_OUTCOMES = ["ok", "refused", "error"] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];
export const DELIVERY_OUTCOMES = ["delivered", "retry", "failed"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Upper bounds in seconds: a keyed answer takes well under a millisecond of CPU, a slow one seconds. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counts one MCP tool call: the hosted server's, or nothing for the local one. */
export type CountToolCall = (tool: string, outcome: ToolOutcome) => void;

/** A server's metrics: its registry, the request histogram and the service's counters. */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** The request histogram, fed by request-watch.ts through children it makes once per series. */
  readonly requestDuration: Histogram<"route" | "method" | "status_class">;
  countQuotaRefusal(tier: TierName): void;
  countVerdict(verdict: Verdict): void;
  countToolCall: CountToolCall;
  /** Counts a webhook delivery attempt: this server's, or one its delivery thread sent over. */
  countDelivery(outcome: DeliveryOutcome): void;
  /** Adds the process's own metrics (CPU, resident memory, heap, event-loop lag, GC), once. */
  collectProcessMetrics(): void;
  /** What the collect-time gauges read; the server sets it once its context exists. */
  watchState(state: StateSources | undefined): void;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const requestDuration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by route template, method and status class.",
    labelNames: ["route", "method", "status_class"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const quotaRefusals = new Counter({
    name: "picks_quota_refusals_total",
    help: "Keyed requests refused with 429 because the key's quota was spent, by tier.",
    labelNames: ["tier"] as const,
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: "picks_mcp_tool_calls_total",
    help: "MCP tool calls, by tool and outcome (ok, refused: an isError answer, error: the tool failed).",
    labelNames: ["tool", "outcome"] as const,
    registers: [registry],
  });
  const verifyAnswers = new Counter({
    name: "picks_verify_answers_total",
    help: "POST /v1/verify answers, by verdict.",
    labelNames: ["verdict"] as const,
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: "picks_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts made by this server, by outcome (delivered, retry: failed and scheduled again, failed: given up).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  // Made once, zero from the start (a rate over them is defined before the first event): prom-client's
  // labels() checks the labels and binds a child on each call.
  const quotaChildren = new Map(TIER_NAMES.map((tier) => [tier, quotaRefusals.labels(tier)]));
  const verdictChildren = new Map(VERDICTS.map((verdict) => [verdict, verifyAnswers.labels(verdict)]));
  const deliveryChildren = new Map(
    DELIVERY_OUTCOMES.map((outcome) => [outcome, webhookDeliveries.labels(outcome)]),
  );
  const toolChildren = new Map(
    ["unknown", ...KNOWN_TOOLS].map((tool) => [
      tool,
      new Map(TOOL_OUTCOMES.map((outcome) => [outcome, toolCalls.labels(tool, outcome)])),
    ]),
  );
  for (const children of [quotaChildren, verdictChildren, deliveryChildren]) {
    for (const child of children.values()) child.inc(0);
  }
  for (const tool of KNOWN_TOOLS) for (const child of toolChildren.get(tool)?.values() ?? []) child.inc(0);
  const state: { sources: StateSources | undefined } = { sources: undefined };
  stateGauges(registry, state);
  let defaultsOn = false;
  return {
    registry,
    requestDuration,
    countQuotaRefusal: (tier) => quotaChildren.get(tier)?.inc(),
    countVerdict: (verdict) => verdictChildren.get(verdict)?.inc(),
    countToolCall: (tool, outcome) =>
      (toolChildren.get(tool) ?? toolChildren.get("unknown"))?.get(outcome)?.inc(),
    countDelivery: (outcome) => deliveryChildren.get(outcome)?.inc(),
    collectProcessMetrics() {
      if (defaultsOn) return;
      defaultsOn = true;
      collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
      // Gauges named like counters, which `promtool check metrics` refuses; the same counts are kept by
      // type in nodejs_active_handles and nodejs_active_resources.
      for (const name of [
        "nodejs_active_handles_total",
        "nodejs_active_requests_total",
        "nodejs_active_resources_total",
      ]) {
        registry.removeSingleMetric(name);
      }
    },
    watchState(sources) {
      state.sources = sources;
    },
  };
}

export const isDeliveryOutcome = (value: unknown): value is DeliveryOutcome =>
  (DELIVERY_OUTCOMES as readonly unknown[]).includes(value);

/**
 * The gauges read when scraped. Each process of a cluster reports the same store, so these are
 * merged by the largest value rather than summed.
 */
export interface StateSources {
  activeKeys(): Promise<Partial<Record<TierName, number>>>;
  queueDepth(queue: "webhooks" | "submissions"): Promise<{ pending: number; inFlight: number }>;
  circuits(): Record<string, string>;
  latestDate(): string | null;
  daysHeld(): number;
  now(): number;
}

const QUEUES = ["webhooks", "submissions"] as const;
const CIRCUIT_VALUES: Record<string, number> = { closed: 0, half_open: 1, open: 2 };

/** The collect-time gauges of `registry`, reading `state.sources` when there are any. */
function stateGauges(registry: Registry, state: { sources: StateSources | undefined }): void {
  new Gauge({
    name: "picks_active_keys",
    help: "API keys that are not revoked, by tier (counted at most once a minute).",
    labelNames: ["tier"] as const,
    registers: [registry],
    aggregator: "max",
    async collect() {
      const counts = await state.sources?.activeKeys().catch(() => undefined);
      if (!counts) return;
      for (const tier of TIER_NAMES) this.labels(tier).set(counts[tier] ?? 0);
    },
  });
  new Gauge({
    name: "picks_queue_depth",
    help: "Items in a work queue (webhooks, submissions), by state (pending, in_flight).",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    aggregator: "max",
    async collect() {
      const sources = state.sources;
      if (!sources) return;
      await Promise.all(
        QUEUES.map(async (queue) => {
          const size = await sources.queueDepth(queue).catch(() => undefined);
          if (!size) return;
          this.labels(queue, "pending").set(size.pending);
          this.labels(queue, "in_flight").set(size.inFlight);
        }),
      );
    },
  });
  // Upstreams seen open once are reported as closed afterwards, so a series ends at 0 instead of vanishing.
  const seenUpstreams = new Set<string>();
  new Gauge({
    name: "picks_circuit_state",
    help: "The circuit breaker of each upstream this server calls: 0 closed, 1 half-open, 2 open.",
    labelNames: ["upstream"] as const,
    registers: [registry],
    aggregator: "max",
    collect() {
      if (!state.sources) return;
      const open = state.sources.circuits();
      // Upstream names come from the operator's configuration (the model's host), never from requests.
      for (const name of Object.keys(open)) seenUpstreams.add(name);
      for (const name of seenUpstreams) this.labels(name).set(CIRCUIT_VALUES[open[name] ?? "closed"] ?? 0);
    },
  });
  new Gauge({
    name: "picks_newest_day_age_seconds",
    help: "Seconds since the start (00:00 UTC) of the newest published day.",
    registers: [registry],
    aggregator: "min",
    collect() {
      const sources = state.sources;
      const latest = sources?.latestDate();
      if (!sources || !latest) return;
      this.set(Math.max(0, (sources.now() - Date.parse(`${latest}T00:00:00Z`)) / 1000));
    },
  });
  new Gauge({
    name: "picks_server_processes",
    help: "Server processes whose metrics this scrape merges: 1, or the workers of `picks serve --workers N`.",
    registers: [registry],
    aggregator: "sum",
    collect() {
      this.set(1);
    },
  });
  new Gauge({
    name: "picks_snapshots_held",
    help: "Published days (one snapshot each) the server holds.",
    registers: [registry],
    aggregator: "max",
    collect() {
      if (state.sources) this.set(state.sources.daysHeld());
    },
  });
}
