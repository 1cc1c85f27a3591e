import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3/node";
import { createApp } from "./app.ts";
import type { AppContext } from "./context.ts";
import { serveSnapshotFast } from "./fast-path.ts";

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts the app on a real port: the snapshot fast path first, then the h3 app. */
export async function listen(
  context: AppContext,
  options: { port: number; host: string },
): Promise<RunningServer> {
  const handler = toNodeHandler(createApp(context));
  const server = createServer((req, res) => {
    if (!serveSnapshotFast(context.snapshots, req, res)) void handler(req, res);
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
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
