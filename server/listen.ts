import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3/node";
import { createApp } from "./app.ts";
import type { AppContext } from "./context.ts";
import { serveSnapshotFast } from "./fast-path.ts";

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting connections and waits for the requests in flight (up to `deadlineMs`), so the
   * caller can close the store afterwards without failing a request halfway.
   */
  close(deadlineMs?: number): Promise<void>;
}

/** Starts the app on a real port: the snapshot fast path first, then the h3 app. */
export async function listen(
  context: AppContext,
  options: { port: number; host: string },
): Promise<RunningServer> {
  const handler = toNodeHandler(createApp(context));
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const server = createServer((req, res) => {
    if (serveSnapshotFast(context.snapshots, req, res)) return;
    // Counted until the handler settles, not until the socket closes: a handler may still be
    // awaiting the store after its client went away.
    inFlight += 1;
    void Promise.resolve(handler(req, res)).finally(() => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    async close(deadlineMs = 10_000) {
      server.close();
      server.closeIdleConnections();
      const idle = new Promise<void>((resolve) => {
        drained = resolve;
        if (inFlight === 0) resolve();
      });
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, deadlineMs).unref());
      await Promise.race([idle, deadline]);
      server.closeAllConnections();
    },
  };
}
