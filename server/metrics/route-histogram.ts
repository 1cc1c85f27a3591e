import type { Metric } from "prom-client";

// http_server_request_duration_seconds, kept in plain arrays and read by prom-client's registry as one
// of its metrics (a registered metric is anything with a name and a `get()` of this shape, which is
// also what AggregatorRegistry merges across a cluster). prom-client's own Histogram builds a labels
// object and a key string on every observe, even through a child from `labels()`: 2.6 % of a keyed
// request's CPU under load (docs/performance.md, "Metrics and request logs"). Here a request adds to
// the counts of a series made once per route, method and status class.

const NAME = "http_server_request_duration_seconds";
const HELP = "Time from a request's arrival to its answer, by route template, method and status class.";

/** Upper bounds in seconds: a keyed answer takes well under a millisecond of CPU, a slow one seconds. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

type Labels = { route: string; method: string; status_class: string };
type Value = { labels: Record<string, string | number>; value: number; metricName: string };

/** One route, method and status class: its counts per bucket (the last past every bound), sum and count. */
export class DurationSeries {
  readonly counts = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;
  readonly labels: Labels;
  constructor(labels: Labels) {
    this.labels = labels;
  }

  observe(seconds: number): void {
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
    this.sum += seconds;
    this.count += 1;
  }
}

export class RouteHistogram {
  readonly name = NAME;
  readonly help = HELP;
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly all: DurationSeries[] = [];
  private readonly byKey = new Map<string, DurationSeries>();

  /**
   * The series of these labels, made on first use; callers keep it (request-watch.ts holds one per
   * route, method and status class), so this lookup is not on a request's path.
   */
  series(labels: Labels): DurationSeries {
    const key = `${labels.route}\u0000${labels.method}\u0000${labels.status_class}`;
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = new DurationSeries(labels);
      this.byKey.set(key, series);
      this.all.push(series);
    }
    return series;
  }

  /** The values as prom-client's Histogram gives them: cumulative buckets with `le`, then sum and count. */
  get() {
    const values: Value[] = [];
    for (const series of this.all) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, at) => {
        cumulative += series.counts[at] as number;
        values.push({
          labels: { le: bound, ...series.labels },
          value: cumulative,
          metricName: `${NAME}_bucket`,
        });
      });
      cumulative += series.counts[DURATION_BUCKETS.length] as number;
      values.push({
        labels: { le: "+Inf", ...series.labels },
        value: cumulative,
        metricName: `${NAME}_bucket`,
      });
      // Not per request: at a scrape.
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${NAME}_sum` });
      // Not per request: at a scrape.
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${NAME}_count` });
    }
    return Promise.resolve({
      name: NAME,
      help: HELP,
      type: "histogram" as const,
      values,
      aggregator: "sum" as const,
    });
  }

  reset(): void {
    for (const series of this.all) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  /** For the registry, which takes prom-client's own metric classes. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}
