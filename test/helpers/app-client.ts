import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll } from "vitest";
import type { AppContext } from "../../server/context.ts";
import { createApp } from "../../server/http/app.ts";
import { listen, type RunningServer } from "../../server/http/listen.ts";
import { checkAnswer } from "./contract.ts";

/** A compressed body decoded, headers kept, as `fetch` hands it over from a real port. */
async function decoded(response: Response): Promise<Response> {
  const coding = response.headers.get("content-encoding");
  if ((coding !== "br" && coding !== "gzip") || response.body === null) return response;
  const bytes = Buffer.from(await response.arrayBuffer());
  const body = coding === "br" ? brotliDecompressSync(bytes) : gunzipSync(bytes);
  return new Response(new Uint8Array(body), { status: response.status, headers: response.headers });
}

/** A request; `ip` sets the socket address in-process (over a real port it is always 127.0.0.1). */
export type CallInit = RequestInit & { ip?: string };
export type Call = (path: string, init?: CallInit) => Promise<Response>;

/** Every answer a test gets is checked against the OpenAPI document first (./contract.ts). */
const checked =
  (call: Call): Call =>
  async (path, init = {}) => {
    const response = await call(path, init);
    await checkAnswer(init.method ?? "GET", path, response);
    return response;
  };

/**
 * The two ways every HTTP test runs (as h3's own tests do): in-process through `app.fetch`, and over a
 * real loopback port, where the snapshot fast path answers before the router.
 */
export const MODES = ["in-process", "real port"] as const;
export type Mode = (typeof MODES)[number];

export async function clientFor(
  mode: Mode,
  context: AppContext,
): Promise<{ call: Call; close: () => Promise<void>; url?: string }> {
  if (mode === "in-process") {
    const app = createApp(context);
    return {
      call: checked(async (path, init = {}) => {
        const { ip = "127.0.0.1", ...rest } = init;
        const request = new Request(`http://localhost${path}`, rest);
        // srvx exposes the socket address as `request.ip`; an in-process request has none of its own.
        Object.defineProperty(request, "ip", { value: ip });
        return decoded(await app.fetch(request));
      }),
      close: async () => {},
    };
  }
  const running: RunningServer = await listen(context, { port: 0, host: "127.0.0.1" });
  return {
    call: checked((path, init = {}) => {
      const { ip: _ip, ...rest } = init;
      return fetch(`${running.url}${path}`, rest);
    }),
    close: running.close,
    url: running.url,
  };
}

// A client in `mode` over the context `make` gives, for a describe block: made before its tests, closed after them.
export function useClient(mode: Mode, make: () => Promise<AppContext>): Call {
  let client: Awaited<ReturnType<typeof clientFor>> | undefined;
  beforeAll(async () => {
    client = await clientFor(mode, await make());
  });
  afterAll(() => client?.close());
  return (path, init) => {
    if (client === undefined) throw new Error("the client is made before the block's tests");
    return client.call(path, init);
  };
}

/** A client over `context` with a free and an enterprise key issued, as the keyed routes' tests use. */
export async function keyedClientFor(mode: Mode, context: AppContext) {
  const issue = async (tier: "free" | "enterprise", email: string, label: string) =>
    (await context.keys.issue({ tier, email, label })).key;
  return {
    ...(await clientFor(mode, context)),
    free: await issue("free", "f@example.org", "free"),
    enterprise: await issue("enterprise", "e@example.org", "ent"),
  };
}

/** JSON POST init. */
export const postJson = (body: unknown, extra: CallInit = {}): CallInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(extra.headers as Record<string, string>) },
  body: typeof body === "string" ? body : JSON.stringify(body),
  ...(extra.ip ? { ip: extra.ip } : {}),
});

/** A request made with a reader's key, its body (if any) sent as JSON. */
export const keyedCall = (call: Call, key: string, method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
