import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type PrometheusContentType, type Registry } from "prom-client";

// With `picks serve --workers N` each process counts its own requests; a scrape must see them all.
// prom-client's AggregatorRegistry does it over node:cluster: the primary asks every worker for its
// metrics as JSON and merges them (counters and histograms summed; the store's gauges, the same in
// every process, by their `aggregator`). A scrape that lands on a worker (/metrics on the main port)
// is passed to the primary, which answers with the merged text.

const ASK = "picks:metrics-ask";
const ANSWER = "picks:metrics-answer";
const ASK_TIMEOUT_MS = 5_000;

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

/** In a cluster worker: answer the primary's requests for this process's metrics, `registry`'s. */
export function shareMetricsWithPrimary(registry: Registry): void {
  if (!cluster.isWorker || aggregator) return;
  // The constructor installs the worker's listener for the primary's requests.
  aggregator = new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/** In the primary: the metrics of every worker, merged, in the text format. */
export function clusterMetricsText(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In the primary: answers a worker that asks for the merged metrics (see askPrimary). */
export function answerMetricsAsk(worker: Worker, message: unknown): boolean {
  const ask = message as { type?: unknown; id?: unknown } | null;
  if (ask?.type !== ASK || typeof ask.id !== "number") return false;
  // The worker that asked may have died while the others answered: a send on its closed channel would
  // throw in the primary and take every worker down with it.
  const reply = (answer: Record<string, unknown>) => {
    if (worker.isConnected()) worker.send({ type: ANSWER, id: ask.id, ...answer }, () => {});
  };
  clusterMetricsText().then(
    (text) => reply({ text }),
    (error: unknown) => reply({ error: String((error as Error)?.message) }),
  );
  return true;
}

let asked = 0;
const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();

function onAnswer(message: unknown): void {
  const answer = message as { type?: unknown; id?: unknown; text?: unknown; error?: unknown } | null;
  if (answer?.type !== ANSWER || typeof answer.id !== "number") return;
  const pending = waiting.get(answer.id);
  if (!pending) return;
  waiting.delete(answer.id);
  if (typeof answer.text === "string") pending.resolve(answer.text);
  else pending.reject(new Error(`the primary could not gather the metrics: ${String(answer.error)}`));
}

/** In a worker: the merged metrics of the whole cluster, from the primary. */
function askPrimary(): Promise<string> {
  if (waiting.size === 0) process.on("message", onAnswer);
  const id = asked++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      const pending = waiting.get(id);
      waiting.delete(id);
      pending?.reject(new Error("the primary did not answer with the metrics within 5 s"));
    }, ASK_TIMEOUT_MS);
    const settle = () => {
      clearTimeout(timer);
      if (waiting.size === 0) process.off("message", onAnswer);
    };
    waiting.set(id, {
      resolve: (text) => {
        settle();
        resolve(text);
      },
      reject: (error) => {
        settle();
        reject(error);
      },
    });
    process.send?.({ type: ASK, id });
  });
}

/** What a scrape answers in this process: its own metrics (`registry`'s), or a cluster worker's whole cluster. */
export function scrapeText(registry: Registry): Promise<string> {
  return cluster.isWorker ? askPrimary() : registry.metrics();
}
