import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A recording proxy in front of an S3 endpoint: it forwards every request as it came, counts them by
// method, remembers the paths written, and can refuse a chosen PUT the way a store refuses one or
// slow every PUT down the way a distant store does.

export type PutListener = (path: string) => "hold" | number | undefined;

export interface S3Proxy {
  /** `http://127.0.0.1:PORT`: give it as S3_ENDPOINT. */
  endpoint: string;
  /** Requests received since the last reset, by method. */
  counts(): Record<string, number>;
  /** The path (without the query) of each PUT received since the last reset, in arrival order. */
  puts(): string[];
  /** Clears the counts and the recorded paths, and disarms `failPut`, `delayPuts`, `refusePutsWith` and `onPut`. */
  reset(): void;
  /** Makes the `n`-th PUT from now (1 for the next) answer `status` with an S3 error, unforwarded. */
  failPut(n: number, status: number): void;
  /** Holds each PUT `ms` before forwarding it, as a slow store does: a publish then takes a while. */
  delayPuts(ms: number): void;
  /**
   * Answers `status` to every PUT carrying the request header `header` (`if-match`), unforwarded: a
   * store that does not implement that condition.
   */
  refusePutsWith(header: string, status: number): void;
  /**
   * Calls `listener` with the path of each PUT as it arrives, before it is forwarded. A listener that
   * answers "hold" keeps that PUT unanswered and unforwarded until the proxy closes (a request in
   * flight when its client is killed); one that answers a status refuses that PUT with it.
   */
  onPut(listener: PutListener | null): void;
  close(): Promise<void>;
}

const ERROR_CODES: Record<number, string> = {
  400: "InvalidRequest",
  403: "AccessDenied",
  404: "NoSuchKey",
  409: "OperationAborted",
  412: "PreconditionFailed",
  500: "InternalError",
  501: "NotImplemented",
  503: "SlowDown",
};

function s3Error(status: number, path: string): string {
  const code = ERROR_CODES[status] ?? "InternalError";
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
    `<Message>refused by the test proxy</Message><Resource>${path}</Resource>` +
    `<RequestId>proxy-refusal</RequestId></Error>`
  );
}

/** Starts the proxy on a free loopback port in front of `upstream` (`http://127.0.0.1:PORT`). */
export async function startS3Proxy(upstream: string): Promise<S3Proxy> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  let counts: Record<string, number> = {};
  let puts: string[] = [];
  let putsSinceArm = 0;
  let armed: { n: number; status: number } | null = null;
  let putDelayMs = 0;
  let refusedHeader: { name: string; status: number } | null = null;
  let putListener: PutListener | null = null;
  const heldRequests = new Set<ServerResponse>();

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, path: string) => {
    // The body is read to its end first, as a store does, so the client sees an answer, not a reset.
    req.resume();
    req.once("end", () => {
      const body = s3Error(status, path);
      res.writeHead(status, {
        "content-type": "application/xml",
        "content-length": Buffer.byteLength(body),
        "x-amz-request-id": "proxy-refusal",
      });
      res.end(body);
    });
  };

  const server = createServer((req, res) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const path = decodeURIComponent(url.split("?")[0] ?? "/");
    counts[method] = (counts[method] ?? 0) + 1;
    if (method === "PUT") {
      const verdict = putListener?.(path);
      if (verdict === "hold") {
        heldRequests.add(res);
        req.resume();
        return;
      }
      puts.push(path);
      if (typeof verdict === "number") {
        refuse(req, res, verdict, path);
        return;
      }
      if (refusedHeader && req.headers[refusedHeader.name] !== undefined) {
        refuse(req, res, refusedHeader.status, path);
        return;
      }
      putsSinceArm += 1;
      if (armed && putsSinceArm === armed.n) {
        const { status } = armed;
        armed = null;
        refuse(req, res, status, path);
        return;
      }
    }
    const forward = () => {
      const forwarded = request(
        { host: target.hostname, port: target.port, method, path: url, headers: req.headers, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${error.message}`);
      });
      req.pipe(forwarded);
    };
    if (method === "PUT" && putDelayMs > 0) setTimeout(forward, putDelayMs);
    else forward();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    puts: () => [...puts],
    reset() {
      counts = {};
      puts = [];
      armed = null;
      putDelayMs = 0;
      refusedHeader = null;
      putListener = null;
    },
    failPut(n, status) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`Expected failPut's n to be 1 or more, got ${n}`);
      armed = { n, status };
      putsSinceArm = 0;
    },
    delayPuts(ms) {
      putDelayMs = ms;
    },
    refusePutsWith(header, status) {
      refusedHeader = { name: header.toLowerCase(), status };
    },
    onPut(listener) {
      putListener = listener;
    },
    close() {
      for (const res of heldRequests) res.destroy();
      agent.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
