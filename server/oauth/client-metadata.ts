import { LRUCache } from "lru-cache";
import { ClientMetadataDocumentSchema, metadataProblem } from "../../pipeline/domain/oauth-client.ts";
import { type HostLookup, systemLookup } from "../outbound/checked-address.ts";
import { safeFetch } from "../outbound/safe-fetch.ts";
import type { OAuthClient } from "./grants.ts";

// Client ID Metadata Documents: a client whose `client_id` is an https URL is described by the JSON
// document at that URL, fetched through the service's SSRF-safe fetcher (public addresses only, no
// redirects), bounded in size and time, and kept a few minutes.

const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 5_000;
const KEPT_MS = 5 * 60_000;
const REFUSAL_KEPT_MS = 60_000;
/** Kept documents and refusals, keys (client ids of up to 2,000 characters) included. */
const KEPT_BYTES = 2 * 1024 * 1024;

export interface ClientMetadataFetcher {
  /** Whether `clientId` names a metadata document rather than a registered client. */
  names(clientId: string): boolean;
  /** Whether its document (or its refusal) is kept, so that resolving it fetches nothing. */
  known(clientId: string): boolean;
  /** The client the document describes; a reason when it cannot be used. */
  resolve(clientId: string): Promise<OAuthClient | { problem: string }>;
}

export function createClientMetadataFetcher(options: {
  /** Test-only (OAUTH_ALLOW_LOOPBACK=1): documents served over http on 127.0.0.1. Never in production. */
  allowLoopback?: boolean;
  lookup?: HostLookup;
  now?: () => number;
}): ClientMetadataFetcher {
  const now = options.now ?? Date.now;
  // `fetch` runs one fetch per document at a time: requests for it meanwhile wait for that one. A
  // refusal is kept a minute, a document five: asking again soon fetches nothing. A fetch whose entry
  // is pushed out meanwhile still answers the requests that wait for it (ignoreFetchAbort).
  const kept = new LRUCache<string, OAuthClient | { problem: string }>({
    maxSize: KEPT_BYTES,
    sizeCalculation: (client, clientId) => 2 * (clientId.length + JSON.stringify(client).length),
    ttl: KEPT_MS,
    ttlResolution: 0,
    perf: { now },
    ignoreFetchAbort: true,
    fetchMethod: async (clientId, _stale, { options }) => {
      const result = await fetchDocument(clientId);
      if ("problem" in result) options.ttl = REFUSAL_KEPT_MS;
      return result;
    },
  });
  const names = (clientId: string): boolean => {
    if (clientId.length > 2000) return false;
    try {
      const url = new URL(clientId);
      // As the metadata document draft asks: no query, fragment, credentials or dot segments, and the
      // default port, so a document cannot be used to aim this server at another service.
      const plain =
        url.search === "" &&
        url.hash === "" &&
        url.username === "" &&
        url.password === "" &&
        !/\/\.\.?(\/|$)/.test(url.pathname);
      if (url.protocol === "https:")
        return plain && url.pathname !== "/" && (url.port === "" || options.allowLoopback === true);
      return options.allowLoopback === true && url.protocol === "http:" && url.hostname === "127.0.0.1";
    } catch {
      return false;
    }
  };
  return {
    names,
    known: (clientId) => kept.has(clientId),
    async resolve(clientId) {
      if (!names(clientId))
        return { problem: "client_id is not an https URL with a path on the default port" };
      // fetchMethod always gives a value, so `fetch` never answers undefined.
      return (await kept.fetch(clientId)) as OAuthClient | { problem: string };
    },
  };

  async function fetchDocument(clientId: string): Promise<OAuthClient | { problem: string }> {
    const fetched = await safeFetch(clientId, {
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_BYTES,
      maxRedirects: 0,
      allowLoopback: options.allowLoopback === true,
      lookup: options.lookup ?? systemLookup,
      userAgent: "Research-Picks OAuth (client metadata)",
      readTypes: ["application/json"],
    });
    if (!fetched.ok)
      return { problem: `the client's metadata document could not be fetched: ${fetched.failure.reason}` };
    const { page } = fetched;
    if (page.status !== 200 || page.body === null) {
      return { problem: `the client's metadata document answered ${page.status}, not a JSON document` };
    }
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(page.body));
    } catch {
      return { problem: "the client's metadata document is not JSON" };
    }
    const parsed = ClientMetadataDocumentSchema.safeParse(json);
    if (!parsed.success) {
      const problem = metadataProblem(parsed.error);
      return "redirectUri" in problem
        ? { problem: `the client's redirect URI ${problem.redirectUri}` }
        : {
            problem: `the client's metadata document is not valid: ${problem.path || "/"} ${problem.message}`,
          };
    }
    if (parsed.data.client_id !== clientId) {
      return { problem: "the client's metadata document names another client_id" };
    }
    const client: OAuthClient = {
      client_id: clientId,
      client_name: parsed.data.client_name,
      redirect_uris: parsed.data.redirect_uris,
      client_id_issued_at: Math.floor(now() / 1000),
    };
    return client;
  }
}
