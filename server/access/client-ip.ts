import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";
import { canonicalAddress, parseForwardedEntry } from "./ip-address.ts";

// Per-IP limits are only as good as the address they count. The socket address is the truth; an
// X-Forwarded-For header is believed only as far as the operator says proxies stand in front
// (TRUST_PROXY), otherwise anyone could dodge the limits by writing the header themselves.

/** How far to believe X-Forwarded-For: not at all, a fixed number of proxy hops, or a set of proxy addresses. */
export type TrustProxy =
  | { kind: "none" }
  | { kind: "hops"; hops: number }
  | { kind: "addresses"; list: BlockList };

const expectedEntries = (entry: string) =>
  new Error(
    "Expected TRUST_PROXY to be a hop count (`1`) or comma-separated addresses, CIDR ranges " +
      `(\`10.0.0.0/8\`, \`2001:db8::/32\`) and \`loopback\`, got \`${entry}\``,
  );

/**
 * Parses TRUST_PROXY: empty for none, a hop count (`1`), or a comma-separated list of addresses,
 * CIDR ranges and `loopback`. Throws with the offending entry on anything else.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? "";
  if (text === "" || text === "0" || text === "false") return { kind: "none" };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (!Number.isSafeInteger(hops)) throw expectedEntries(text);
    return hops === 0 ? { kind: "none" } : { kind: "hops", hops };
  }
  const list = new BlockList();
  for (const entry of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    if (entry === "loopback") {
      list.addSubnet("127.0.0.0", 8, "ipv4");
      list.addAddress("::1", "ipv6");
      continue;
    }
    const [address = "", bits, ...rest] = entry.split("/");
    const family = isIP(address);
    const width = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    if (family === 0 || rest.length > 0 || prefix < 0 || prefix > width) throw expectedEntries(entry);
    // BlockList matches an IPv4 rule against the IPv4-mapped spelling and the other way round.
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  return { kind: "addresses", list };
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The client's address, canonical (./ip-address.ts): the socket's, or, behind trusted proxies, the
 * nearest X-Forwarded-For entry that is not a trusted proxy. Entries are read from the right, the
 * end the proxies write; a port is removed; an entry that is not an address is never trusted and
 * never skipped.
 */
export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  trust: TrustProxy,
): string {
  const socket = canonicalAddress(socketAddress ?? "") ?? "unknown";
  if (trust.kind === "none" || !forwardedFor) return socket;
  if (trust.kind === "addresses" && !isTrusted(trust.list, socket)) return socket;
  const entries = forwardedFor.split(",");
  // The nearest address known to be true: the socket, then each hop a trusted proxy vouched for.
  let known = socket;
  let hop = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = (entries[i] as string).trim();
    // Empty list elements are ignored (RFC 9110 5.6.1); a proxy never writes one, so no hop is lost.
    if (entry === "") continue;
    hop++;
    const address = parseForwardedEntry(entry);
    // The hop a trusted proxy reported is not an address (`unknown`, an obfuscated name, or a client's
    // garbage at the position the operator's setting points at). Taking any entry further left would
    // let the client choose its address; taking the text itself would give a fresh limit bucket per
    // distinct string. So the client is counted as the nearest trusted proxy saw it: the last known
    // address, shared by everyone who arrives that way.
    if (address === null) return known;
    // With N proxies in front, the last N-1 entries were written by them; the one before is the client.
    const trusted = trust.kind === "hops" ? hop < trust.hops : isTrusted(trust.list, address);
    if (!trusted) return address;
    known = address;
  }
  return known;
}

/** `clientIp` of a request on Node's own objects (the fast routes, the request log). */
export function nodeClientIp(req: IncomingMessage, trust: TrustProxy): string {
  // Node joins a repeated X-Forwarded-For with ", " as Headers.get does; the type allows a list.
  const header = req.headers["x-forwarded-for"];
  const forwardedFor = typeof header === "string" ? header : (header?.join(", ") ?? null);
  return clientIp(req.socket?.remoteAddress, forwardedFor, trust);
}
