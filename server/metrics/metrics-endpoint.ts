import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { bearerToken } from "../access/bearer-token.ts";

/** A `/metrics` answer, written the same way by the main app and by the metrics listener. */
export interface MetricsAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const digest = (text: string): Buffer => createHash("sha256").update(text).digest();

/** True when `authorization` is `Bearer <token>`; compared by digest, in constant time. */
function hasBearer(authorization: string | null | undefined, token: string): boolean {
  const given = bearerToken(authorization);
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

const detailOf = (message: string) => JSON.stringify({ detail: message });

/**
 * GET /metrics: the scrape, or 401 without the token when one is set. `scrape` gives the text: this
 * server's, or the whole cluster's.
 */
export async function answerMetrics(
  authorization: string | null | undefined,
  token: string | null,
  scrape: () => Promise<string>,
): Promise<MetricsAnswer> {
  if (token !== null && !hasBearer(authorization, token)) {
    return {
      status: 401,
      body: detailOf("The metrics need the operator's token: send Authorization: Bearer <METRICS_TOKEN>."),
      headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="metrics"' },
    };
  }
  try {
    return {
      status: 200,
      body: await scrape(),
      headers: { "content-type": Registry.PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" },
    };
  } catch (error) {
    return {
      status: 503,
      body: detailOf(`The metrics could not be gathered: ${(error as Error).message}`),
      headers: { "content-type": "application/json", "retry-after": "5" },
    };
  }
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/**
 * The metrics on a port of their own (METRICS_PORT): GET /metrics only, 404 for any other path,
 * 405 for any other method. Rejects with the listen error (a port in use) for the caller to report.
 * The listener does not keep the process alive: it lives as long as the server beside it.
 */
export async function listenMetrics(options: {
  host: string;
  port: number;
  token: string | null;
  scrape: () => Promise<string>;
}): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    const send = (answer: MetricsAnswer) => {
      res.writeHead(answer.status, {
        ...answer.headers,
        "content-length": String(Buffer.byteLength(answer.body)),
      });
      res.end(req.method === "HEAD" ? undefined : answer.body);
    };
    if (path !== "/metrics") {
      send({ status: 404, body: detailOf("Not Found"), headers: { "content-type": "application/json" } });
    } else if (req.method !== "GET" && req.method !== "HEAD") {
      send({
        status: 405,
        body: detailOf("Method Not Allowed"),
        headers: { "content-type": "application/json", allow: "GET, HEAD" },
      });
    } else {
      void answerMetrics(req.headers.authorization, options.token, options.scrape).then(send);
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
