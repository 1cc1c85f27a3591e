import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import type { AppContext } from "../context.ts";
import { metricsOn } from "../metrics/metrics-settings.ts";
import { createRequestLog } from "../metrics/request-log.ts";
import { createRequestWatch } from "../metrics/request-watch.ts";
import { snapshotRoute, UNMATCHED } from "../metrics/route-label.ts";
import { stateSources } from "../metrics/state-sources.ts";
import { createApp } from "./app.ts";
import { serveSnapshotFast } from "./fast-path.ts";
import { FAST_ROUTES, type FastRoute, fastRouteOf } from "./fast-routes.ts";
import { nodeHandler, type Served } from "./node-answer.ts";

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections and waits for the requests in flight (up to `deadlineMs`), so the
   * caller can close the store afterwards without failing a request halfway.
   */
  close(deadlineMs?: number): Promise<void>;
}

/** How long the rest of a refused body is drained before the connection is cut. */
const LINGER_MS = 1000;

/**
 * After a 413 the rest of the body is not wanted, and the connection cannot be reused before it has
 * passed. Closing at once would reset the connection while the client is still sending, and many
 * clients then report the reset instead of the answer; so the server half-closes (the client reads
 * the answer, then the end), discards what is still in flight, and cuts the connection after LINGER_MS.
 */
function closeAfterRefusedBody(req: IncomingMessage, socket: Socket): void {
  req.resume();
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/** Node's client timeouts from the config (docs/operations.md, "Timeouts"). */
function serverLimits(config: AppContext["config"]) {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config;
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    // How often Node looks for connections past these timeouts (30 s by default, which would let a
    // 10 s limit run to 40 s).
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
  };
}

/** The metrics and request log of a server, as its config asks; a null watch times nothing. */
function watchRequests(context: AppContext) {
  const { metrics } = context.config;
  const counting = metricsOn(metrics);
  if (counting) {
    context.metrics.collectProcessMetrics();
    context.metrics.watchState(stateSources(context));
  }
  const log = metrics.logRequests ? createRequestLog() : null;
  return {
    log,
    watch: createRequestWatch({
      histogram: counting ? context.metrics.requestDuration : null,
      log,
      trustProxy: context.config.trustProxy,
    }),
  };
}

/**
 * Encodes the newest list items ahead of the first query (papers-answers.ts), now and after each
 * reload of the snapshots; returns the function that stops the reloads' warm-ups.
 */
function startWarming(context: AppContext): () => void {
  const warm = () => {
    context.papers.warm().catch((error: unknown) => {
      context.log(`papers: the newest items were not made ahead: ${(error as Error)?.message ?? error}`);
    });
  };
  warm();
  return context.snapshots.onReload?.(warm) ?? (() => {});
}

/** Requests whose handler has not settled, and a promise of the moment there are none. */
function inFlightCount() {
  let count = 0;
  let drained: (() => void) | undefined;
  return {
    enter: () => {
      count += 1;
    },
    leave: () => {
      count -= 1;
      if (count === 0) drained?.();
    },
    idle: () =>
      new Promise<void>((resolve) => {
        drained = resolve;
        if (count === 0) resolve();
      }),
  };
}

/**
 * Starts the app on a real port: the snapshot fast path first, the fast routes (./fast-routes.ts)
 * next, then the h3 app. Listening also starts the background work of a server: the encoding of the
 * newest list items, at start and after each reload of the snapshots.
 */
export async function listen(
  context: AppContext,
  options: {
    port: number;
    host: string;
    /** The routes answered before the router; none sends every request through it (tests compare the two). */
    fastRoutes?: readonly FastRoute[];
  },
): Promise<RunningServer> {
  const fastRoutes = options.fastRoutes ?? FAST_ROUTES;
  const app = createApp(context);
  const handler = nodeHandler((request) => app.fetch(request), context.log);
  const { watch, log: requestLog } = watchRequests(context);
  const inFlight = inFlightCount();
  const server = createServer(serverLimits(context.config), (req, res) => {
    const startedAt = watch === null ? 0 : performance.now();
    // The connection's bytes before this answer: the log reports what the answer added.
    const sentBefore = watch?.logging ? req.socket.bytesWritten : 0;
    if (serveSnapshotFast(context.snapshots, req, res)) {
      if (watch !== null)
        watch.done(req, res, startedAt, snapshotRoute(req.url ?? ""), undefined, sentBefore);
      return;
    }
    const fast = fastRouteOf(req, fastRoutes);
    if (fast?.method !== "GET") {
      // Node detaches the socket from both when the answer is done; keep it for the 413 case.
      const socket = req.socket;
      res.once("finish", () => {
        if (res.statusCode === 413 && !req.complete) closeAfterRefusedBody(req, socket);
      });
    }
    // Counted until the handler settles, not until the socket closes: a handler may still be
    // awaiting the store after its client went away.
    inFlight.enter();
    const answered: Promise<Served> = fast
      ? fast.serve(context, req, res).then(({ key }) => ({ route: fast.path, key }))
      : handler(req, res);
    const settled = (served: Served | undefined) => {
      inFlight.leave();
      if (watch === null) return;
      try {
        watch.done(req, res, startedAt, served?.route ?? fast?.path ?? UNMATCHED, served?.key, sentBefore);
      } catch (error) {
        // Counting or logging must never fail a request that was answered.
        context.log(`request not counted: ${(error as Error)?.stack ?? error}`);
      }
    };
    answered.then(settled, (error: unknown) => {
      // The fast paths answer their own failures; this is a socket that failed under the answer.
      context.log(`answer not sent: ${(error as Error)?.stack ?? error}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
      settled(undefined);
    });
  });
  // Set again: older Node versions take it only as a property.
  server.keepAliveTimeout = context.config.keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const stopWarming = startWarming(context);
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    async close(deadlineMs = 10_000) {
      stopWarming();
      server.close();
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs).unref());
      await Promise.race([inFlight.idle(), deadline]);
      server.closeAllConnections();
      requestLog?.close();
    },
  };
}
