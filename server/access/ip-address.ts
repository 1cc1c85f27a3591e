import { isIP, SocketAddress } from "node:net";
import { ipv6Groups } from "../outbound/address-class.ts";

// One client, one spelling. Node validates (`isIP`) and writes the canonical text (`SocketAddress`
// goes through inet_pton/inet_ntop: lowercase, RFC 5952 compression, zone id dropped); its eight
// groups, to mask it to a prefix, are read as the outbound address check reads them.

/** The default length of the IPv6 prefix counted as one client: a subscriber usually holds a /64. */
export const DEFAULT_IPV6_PREFIX = 64;

const MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * The canonical text of a bare address, or null when it is not one. IPv6 is lowercased and
 * compressed; an IPv4-mapped address (`::ffff:1.2.3.4`, `::ffff:102:304`) becomes its IPv4 address.
 * @example canonicalAddress("2001:0DB8:0:0:0:0:0:1") === "2001:db8::1"
 */
export function canonicalAddress(text: string): string | null {
  const family = isIP(text);
  // isIP takes only the four-part decimal form without leading zeros, which is already canonical.
  if (family === 4) return text;
  if (family !== 6) return null;
  let canonical: string;
  try {
    canonical = new SocketAddress({ address: text, family: "ipv6" }).address;
  } catch {
    return null; // isIP and inet_pton disagree: the text came from a client, so it is just unparseable
  }
  return MAPPED.exec(canonical)?.[1] ?? canonical;
}

const PORT = /^\d{1,5}$/;
const validPort = (port: string | undefined) =>
  port === undefined || (PORT.test(port) && Number(port) <= 65535);

/**
 * One `X-Forwarded-For` entry as a canonical address with any port removed, or null when it is not
 * an address (`unknown`, an obfuscated `_identifier`, garbage). Takes `1.2.3.4`, `1.2.3.4:80`,
 * `2001:db8::1`, `[2001:db8::1]` and `[2001:db8::1]:443`.
 */
export function parseForwardedEntry(entry: string): string | null {
  const text = entry.trim();
  const bracketed = /^\[([^[\]]+)\](?::([^:]*))?$/.exec(text);
  if (bracketed) {
    const [, address = "", port] = bracketed;
    return isIP(address) === 6 && validPort(port) ? canonicalAddress(address) : null;
  }
  const withPort = /^([^:]+):([^:]*)$/.exec(text);
  if (withPort) {
    const [, address = "", port] = withPort;
    return isIP(address) === 4 && validPort(port) ? address : null;
  }
  return canonicalAddress(text);
}

/**
 * What a per-address limit counts: an IPv4 address as itself, an IPv6 address as its network of
 * `ipv6Prefix` bits (with the length, so a changed setting never shares a bucket with the old one),
 * anything that is not an address unchanged.
 * @example limitAddress("2001:DB8:1:2::99", 64) === "2001:db8:1:2::/64"
 * @example limitAddress("::ffff:102:304", 64) === "1.2.3.4"
 */
export function limitAddress(address: string, ipv6Prefix: number): string {
  const canonical = canonicalAddress(address);
  if (canonical === null) return address;
  if (isIP(canonical) === 4) return canonical;
  const masked = ipv6Groups(canonical).map((group, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - 16 * i));
    return group & (0xffff << (16 - bits)) & 0xffff;
  });
  const network = new SocketAddress({
    address: masked.map((group) => group.toString(16)).join(":"),
    family: "ipv6",
  });
  return `${network.address}/${ipv6Prefix}`;
}
