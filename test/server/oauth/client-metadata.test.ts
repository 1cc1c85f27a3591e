import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientMetadataFetcher } from "../../../server/oauth/client-metadata.ts";

// How client metadata documents are kept: one fetch per document however many ask at once, a
// document kept five minutes and a refusal one, on the fetcher's clock. The documents are served on
// loopback (the test-only allowLoopback); every request the server gets is counted.

let server: Server;
let base: string;
const asked = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "/";
    asked.set(path, (asked.get(path) ?? 0) + 1);
    // Slow enough that the requests of a test are all waiting while the first fetch runs.
    setTimeout(() => {
      if (path.startsWith("/missing")) {
        res.writeHead(404).end();
        return;
      }
      const document = {
        client_id: `${base}${path}`,
        client_name: "Agent",
        redirect_uris: ["http://127.0.0.1/cb"],
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document));
    }, 50);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("client metadata documents", () => {
  it("fetches a document once for requests that ask for it at the same time", async () => {
    const fetcher = createClientMetadataFetcher({ allowLoopback: true });
    const id = `${base}/together.json`;
    const answers = await Promise.all([fetcher.resolve(id), fetcher.resolve(id), fetcher.resolve(id)]);
    expect(asked.get("/together.json")).toBe(1);
    for (const answer of answers) expect(answer).toMatchObject({ client_id: id, client_name: "Agent" });
    expect(fetcher.known(id)).toBe(true);
  });

  it("keeps a document five minutes", async () => {
    let clock = 1_000_000;
    const fetcher = createClientMetadataFetcher({ allowLoopback: true, now: () => clock });
    const id = `${base}/five.json`;
    expect(fetcher.known(id)).toBe(false);
    await fetcher.resolve(id);
    clock += 5 * 60_000 - 1;
    expect(fetcher.known(id)).toBe(true);
    await fetcher.resolve(id);
    expect(asked.get("/five.json")).toBe(1);
    clock += 2;
    expect(fetcher.known(id)).toBe(false);
    await fetcher.resolve(id);
    expect(asked.get("/five.json")).toBe(2);
  });

  it("keeps a refusal one minute", async () => {
    let clock = 1_000_000;
    const fetcher = createClientMetadataFetcher({ allowLoopback: true, now: () => clock });
    const id = `${base}/missing.json`;
    expect(await fetcher.resolve(id)).toEqual({ problem: expect.stringContaining("HTTP 404") });
    clock += 60_000 - 1;
    expect(fetcher.known(id)).toBe(true);
    await fetcher.resolve(id);
    expect(asked.get("/missing.json")).toBe(1);
    clock += 2;
    expect(fetcher.known(id)).toBe(false);
    await fetcher.resolve(id);
    expect(asked.get("/missing.json")).toBe(2);
  });

  it("fetches nothing for a client_id that is not a document's address", async () => {
    const fetcher = createClientMetadataFetcher({ allowLoopback: true });
    expect(await fetcher.resolve("my-client")).toEqual({
      problem: "client_id is not an https URL with a path on the default port",
    });
    expect(fetcher.known("my-client")).toBe(false);
  });
});
