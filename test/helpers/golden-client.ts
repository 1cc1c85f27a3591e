// What the golden recording and the fast routes' live comparison share: a context on a fixed clock,
// each call's key headers (issued fresh, or shared by its group) and one raw request per call on its
// own connection, read as status, sorted header pairs and body bytes.

import { request as httpRequest } from "node:http";
import { parseTrustProxy } from "../../server/access/client-ip.ts";
import { generateKey } from "../../server/access/key-format.ts";
import type { AppContext } from "../../server/context.ts";
import type { SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../server/store/memory-store.ts";
import type { GoldenCall, Tier } from "../server/golden/golden-calls.ts";
import { testContext } from "./context.ts";

/** A Friday, 12:00:30.250 UTC: Saturday already east of UTC+12, so the weekend block can trigger. */
export const GOLDEN_NOW = Date.parse("2026-11-20T12:00:30.250Z");

/**
 * A context whose clock, and its memory store's, stand at GOLDEN_NOW (the store expires counters by
 * its own clock, and the wall clock is past NOW's windows), behind a trusted loopback proxy, with a
 * public base URL so that no answer names the listener's random port.
 */
export async function goldenContext(snapshots: SnapshotCache): Promise<AppContext> {
  return testContext(snapshots, {
    now: () => GOLDEN_NOW,
    store: await createMemoryStore({ clock: () => GOLDEN_NOW }),
    config: {
      trustProxy: parseTrustProxy("loopback"),
      publicBaseUrl: "https://picks.example",
      mcpAllowedOrigins: ["https://app.example"],
    },
  });
}

/**
 * The headers a call is sent with: its own, its key's (`issue` makes a key of a tier; a group's calls
 * share one) and its client address.
 */
export async function callHeaders(
  call: GoldenCall,
  groups: Map<string, string>,
  issue: (tier: Tier) => Promise<string>,
  keyPrefix: string,
): Promise<Record<string, string>> {
  const headers = { ...call.headers, ...(await keyHeaders(call, groups, issue, keyPrefix)) };
  if (call.forwardedFor !== undefined) headers["x-forwarded-for"] = call.forwardedFor;
  return headers;
}

async function keyHeaders(
  call: GoldenCall,
  groups: Map<string, string>,
  issue: (tier: Tier) => Promise<string>,
  keyPrefix: string,
): Promise<Record<string, string>> {
  const { auth } = call;
  const put = (via: "x-api-key" | "bearer", key: string): Record<string, string> =>
    via === "x-api-key" ? { "x-api-key": key } : { authorization: `Bearer ${key}` };
  switch (auth.kind) {
    case "none":
      return {};
    case "literal":
      return { [auth.header]: auth.value };
    case "unknown-key":
      return put(auth.via, generateKey(keyPrefix));
    case "key": {
      let key = auth.group === undefined ? undefined : groups.get(auth.group);
      if (key === undefined) {
        key = await issue(auth.tier);
        if (auth.group !== undefined) groups.set(auth.group, key);
      }
      return put(auth.via, key);
    }
  }
}

export interface RawAnswer {
  status: number;
  /** Lower-case names, sorted (Node may write them in another order for the same answer). */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** One request on its own connection; the `volatile` headers (the moment, the connection) left out. */
export function sendRaw(
  url: string,
  call: GoldenCall,
  headers: Record<string, string>,
  volatile: ReadonlySet<string>,
): Promise<RawAnswer> {
  const body =
    call.bodyBase64 !== undefined
      ? Buffer.from(call.bodyBase64, "base64")
      : call.body !== undefined
        ? Buffer.from(call.body, "utf8")
        : undefined;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method: call.method,
        path: call.path,
        agent: false,
        headers: body ? { ...headers, "content-length": String(body.length) } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = (res.rawHeaders[i] as string).toLowerCase();
            if (!volatile.has(name)) pairs.push([name, res.rawHeaders[i + 1] as string]);
          }
          pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
          resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks) });
        });
      },
    );
    // A refused large body may be cut off while it is still being sent; the answer has come by then.
    req.on("error", reject);
    req.end(body);
  });
}
