import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { TIER_NAMES, type TierName } from "../../pipeline/domain/tiers.ts";
import { VERDICTS, type Verdict } from "../../pipeline/domain/verify-request.ts";

// The process's metrics, one registry per process. Every label value is a route template or one of
// the fixed lists below, never text from a request: a client cannot make a new series.

export const registry = new Registry();

/** The hosted MCP's tools; a name outside this list is counted as "unknown". */
export const KNOWN_TOOLS = ["labs_papers", "labs_paper", "labs_axes", "labs_stats", "labs_for_me"] as const;
export const TOOL_OUTCOMES = ["ok", "refused", "error"] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];
export const DELIVERY_OUTCOMES = ["delivered", "retry", "failed"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Upper bounds in seconds: a keyed answer takes well under a millisecond of CPU, a slow one seconds. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The request histogram, fed by request-watch.ts through children it makes once per series. */
export const requestDuration = new Histogram({
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

// Zero from the start, so a rate over them is defined before the first event.
for (const tier of TIER_NAMES) quotaRefusals.labels(tier).inc(0);
for (const verdict of VERDICTS) verifyAnswers.labels(verdict).inc(0);
for (const outcome of DELIVERY_OUTCOMES) webhookDeliveries.labels(outcome).inc(0);
for (const tool of KNOWN_TOOLS) for (const outcome of TOOL_OUTCOMES) toolCalls.labels(tool, outcome).inc(0);

const quotaChildren = new Map(TIER_NAMES.map((tier) => [tier, quotaRefusals.labels(tier)]));
const verdictChildren = new Map(VERDICTS.map((verdict) => [verdict, verifyAnswers.labels(verdict)]));
// prom-client's labels() checks the labels and binds a child on each call: made once here.
const toolChildren = new Map(
  ["unknown", ...KNOWN_TOOLS].map((tool) => [
    tool,
    new Map(TOOL_OUTCOMES.map((outcome) => [outcome, toolCalls.labels(tool, outcome)])),
  ]),
);

export function countQuotaRefusal(tier: TierName): void {
  quotaChildren.get(tier)?.inc();
}

export function countVerdict(verdict: Verdict): void {
  verdictChildren.get(verdict)?.inc();
}

export function countToolCall(tool: string, outcome: ToolOutcome): void {
  (toolChildren.get(tool) ?? toolChildren.get("unknown"))?.get(outcome)?.inc();
}

let deliveryListener: ((outcome: DeliveryOutcome) => void) | undefined;

/**
 * Counts a webhook delivery attempt. On the delivery thread, the listener sends it to the serving
 * thread, whose registry is the one scraped.
 */
export function countDelivery(outcome: DeliveryOutcome): void {
  if (deliveryListener) deliveryListener(outcome);
  else webhookDeliveries.labels(outcome).inc();
}

/** Sends this thread's delivery counts elsewhere instead of counting them here. */
export function forwardDeliveries(listener: (outcome: DeliveryOutcome) => void): void {
  deliveryListener = listener;
}

export const isDeliveryOutcome = (value: unknown): value is DeliveryOutcome =>
  (DELIVERY_OUTCOMES as readonly unknown[]).includes(value);

let defaultsOn = false;

/** The process's own metrics (CPU, resident memory, heap, event-loop lag, GC), once per process. */
export function collectProcessMetrics(): void {
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
}

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

let sources: StateSources | undefined;

/** What the collect-time gauges read; the server sets it once its context exists. */
export function watchState(state: StateSources | undefined): void {
  sources = state;
}

new Gauge({
  name: "picks_active_keys",
  help: "API keys that are not revoked, by tier (counted at most once a minute).",
  labelNames: ["tier"] as const,
  registers: [registry],
  aggregator: "max",
  async collect() {
    if (!sources) return;
    const counts = await sources.activeKeys().catch(() => undefined);
    if (!counts) return;
    for (const tier of TIER_NAMES) this.labels(tier).set(counts[tier] ?? 0);
  },
});

const QUEUES = ["webhooks", "submissions"] as const;

new Gauge({
  name: "picks_queue_depth",
  help: "Items in a work queue (webhooks, submissions), by state (pending, in_flight).",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  aggregator: "max",
  async collect() {
    if (!sources) return;
    const state = sources;
    await Promise.all(
      QUEUES.map(async (queue) => {
        const size = await state.queueDepth(queue).catch(() => undefined);
        if (!size) return;
        this.labels(queue, "pending").set(size.pending);
        this.labels(queue, "in_flight").set(size.inFlight);
      }),
    );
  },
});

const CIRCUIT_VALUES: Record<string, number> = { closed: 0, half_open: 1, open: 2 };
// Upstreams seen open once are reported as closed afterwards, so a series ends at 0 instead of vanishing.
const seenUpstreams = new Set<string>();

new Gauge({
  name: "picks_circuit_state",
  help: "The circuit breaker of each upstream this server calls: 0 closed, 1 half-open, 2 open.",
  labelNames: ["upstream"] as const,
  registers: [registry],
  aggregator: "max",
  collect() {
    if (!sources) return;
    const open = sources.circuits();
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
    if (sources) this.set(sources.daysHeld());
  },
});
