// A fake upstream on loopback for the live sources: it replays the real recorded bodies from
// ../shared/fixtures, and can misbehave the ways real upstreams do (status codes, Retry-After, bodies cut
// short, no answer at all). Tests point the clients' base URLs at it; nothing reaches the internet.

import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fixture } from "./fixtures.ts";

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Sends the headers (with the full Content-Length) and this many bytes of the body, then drops the connection. */
  truncateAt?: number;
  /** Never answers: the client's timeout has to end the call. */
  hang?: boolean;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export type Reply = FakeReply | ((request: SeenRequest) => FakeReply);

export interface FakeUpstream {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  requests: SeenRequest[];
  /** Replies for `METHOD /path`, used in order; the last one repeats. Replaces earlier replies for it. */
  route(method: string, path: string, ...replies: Reply[]): void;
  /** Requests to one path. */
  seen(path: string): SeenRequest[];
  close(): Promise<void>;
}

/** The text of a recorded fixture file. */
export const fixtureText = (path: string): string => readFileSync(fixture(path), "utf8");

/** A recorded Atom/XML body, served as arXiv serves it. */
export const xmlReply = (path: string): FakeReply => ({
  headers: { "content-type": "application/atom+xml; charset=utf-8" },
  body: fixtureText(path),
});

/** A wrapped JSON fixture (`{response_status, response_body}`), served with its recorded status. */
export function wrappedReply(path: string): FakeReply {
  const recorded = JSON.parse(fixtureText(path)) as { response_status: number; response_body: unknown };
  return {
    status: recorded.response_status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(recorded.response_body),
  };
}

/** The `response_body` of a wrapped JSON fixture. */
export const wrappedBody = <T = unknown>(path: string): T =>
  (JSON.parse(fixtureText(path)) as { response_body: T }).response_body;

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const routes = new Map<string, { replies: Reply[]; next: number }>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const seen: SeenRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: performance.now(),
      };
      requests.push(seen);
      const route = routes.get(`${seen.method} ${seen.path}`);
      if (!route) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"error":"no such route in the fake"}');
        return;
      }
      const planned = route.replies[Math.min(route.next, route.replies.length - 1)] as Reply;
      route.next += 1;
      const reply = typeof planned === "function" ? planned(seen) : planned;
      if (reply.hang) return;
      const body = Buffer.from(reply.body ?? "");
      const headers = { ...reply.headers, "content-length": String(body.length) };
      res.writeHead(reply.status ?? 200, headers);
      if (reply.truncateAt !== undefined) {
        res.write(body.subarray(0, reply.truncateAt));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(method, path, ...replies) {
      routes.set(`${method} ${path}`, { replies, next: 0 });
    },
    seen: (path) => requests.filter((request) => request.path === path),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
