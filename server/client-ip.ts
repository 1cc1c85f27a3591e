import { BlockList, isIP } from "node:net";

// Per-IP limits are only as good as the address they count. The socket address is the truth; an
// X-Forwarded-For header is believed only as far as the operator says proxies stand in front
// (TRUST_PROXY), otherwise anyone could dodge the limits by writing the header themselves.

/** How far to believe X-Forwarded-For: not at all, a fixed number of proxy hops, or a set of proxy addresses. */
export type TrustProxy =
  | { kind: "none" }
  | { kind: "hops"; hops: number }
  | { kind: "addresses"; list: BlockList };

/**
 * Parses TRUST_PROXY: empty for none, a hop count (`1`), or a comma-separated list of addresses,
 * CIDR ranges and `loopback`. Throws with the offending entry on anything else.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? "";
  if (text === "" || text === "0" || text === "false") return { kind: "none" };
  if (/^\d+$/.test(text)) return { kind: "hops", hops: Number(text) };
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
    const [address = "", bits] = entry.split("/");
    const family = isIP(address);
    if (family === 0 || (bits !== undefined && !/^\d+$/.test(bits))) {
      throw new Error(
        `Expected TRUST_PROXY entries to be addresses, CIDR ranges or \`loopback\`, got \`${entry}\``,
      );
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return { kind: "addresses", list };
}

const unmap = (address: string): string =>
  address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The client's address: the socket's, or the nearest untrusted hop of X-Forwarded-For behind trusted proxies. */
export function clientIp(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  trust: TrustProxy,
): string {
  const socket = unmap(socketAddress ?? "unknown");
  if (trust.kind === "none" || !forwardedFor) return socket;
  const chain = forwardedFor
    .split(",")
    .map((hop) => unmap(hop.trim()))
    .filter((hop) => isIP(hop) !== 0);
  if (trust.kind === "hops") {
    // With N proxies in front, the last N-1 entries were written by them; the one before is the client.
    return chain[chain.length - trust.hops] ?? chain[0] ?? socket;
  }
  if (!isTrusted(trust.list, socket)) return socket;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i] as string;
    if (!isTrusted(trust.list, hop)) return hop;
  }
  return chain[0] ?? socket;
}
