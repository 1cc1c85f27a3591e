import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { nodeClientIp, type TrustProxy } from "../access/client-ip.ts";
import type { KeyRecord } from "../access/key-service.ts";
import type { RequestLog } from "./request-log.ts";
import {
  METHOD_COUNT,
  methodIndex,
  methodName,
  STATUS_CLASS_COUNT,
  statusClassName,
  statusIndex,
} from "./route-label.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** What listen.ts calls around each request when metrics or the request log are on. */
export interface RequestWatch {
  /** True when lines are logged: the caller then notes the connection's bytes before the answer. */
  readonly logging: boolean;
  /** The answer is written (or the handler settled): observe it, and log it. */
  done(
    req: IncomingMessage,
    res: ServerResponse,
    startedAt: number,
    route: string,
    key: KeyRecord | undefined,
    sentBefore: number,
  ): void;
}

type Histogram = ServiceMetrics["requestDuration"];
type Series = ReturnType<Histogram["labels"]>;

/**
 * The histogram's children, made once per route, method and status class (prom-client's `labels()`
 * checks the labels and binds a child on each call), in a table as large as the route table at
 * most: routes are templates.
 */
function routeTimers(requestDuration: Histogram): (route: string, method: number, status: number) => Series {
  const rows = new Map<string, Array<Series | undefined>>();
  return (route, method, status) => {
    let row = rows.get(route);
    if (row === undefined) {
      row = new Array<Series | undefined>(METHOD_COUNT * STATUS_CLASS_COUNT).fill(undefined);
      rows.set(route, row);
    }
    const at = method * STATUS_CLASS_COUNT + status;
    let series = row[at];
    if (series === undefined) {
      series = requestDuration.labels(route, methodName(method), statusClassName(status));
      row[at] = series;
    }
    return series;
  };
}

/** The watch of a server, or null when neither metrics nor the request log are on (nothing is timed). */
export function createRequestWatch(options: {
  /** The histogram to observe, or null when metrics are off. */
  histogram: Histogram | null;
  log: RequestLog | null;
  trustProxy: TrustProxy;
}): RequestWatch | null {
  const { histogram, log, trustProxy } = options;
  if (histogram === null && log === null) return null;
  const timerOf = histogram && routeTimers(histogram);
  return {
    logging: log !== null,
    done(req, res, startedAt, route, key, sentBefore) {
      const ms = performance.now() - startedAt;
      const status = res.statusCode;
      if (timerOf) timerOf(route, methodIndex(req.method), statusIndex(status)).observe(ms / 1000);
      if (log === null) return;
      const socket = req.socket;
      log.write({
        method: req.method ?? "",
        route,
        status,
        duration_ms: Math.round(ms * 1000) / 1000,
        bytes: socket ? socket.bytesWritten - sentBefore : 0,
        key_id: key?.id ?? null,
        tier: key?.tier ?? null,
        client: nodeClientIp(req, trustProxy),
      });
    },
  };
}
