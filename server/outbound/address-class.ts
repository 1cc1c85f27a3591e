// Which IP addresses an outbound call to a url a client gave (a submission, a webhook, a client
// metadata document) may reach. IPv4 is checked against a deny list of special-purpose
// blocks; IPv6 is allowed only in global unicast (2000::/3) outside its special blocks, and the forms
// that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by that address.
import { isIPv4, isIPv6 } from "node:net";

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "carrier-grade-nat"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "this-network"
  | "cloud-metadata"
  | "unique-local"
  | "documentation"
  | "reserved"
  | "not-an-address";

export type EmbeddingForm = "ipv4-mapped" | "ipv4-compatible" | "ipv4-translated" | "nat64" | "6to4";

export interface AddressVerdict {
  address: string;
  class: AddressClass;
  allowed: boolean;
  /** Set when an IPv6 address was judged by the IPv4 address inside it. */
  via?: { form: EmbeddingForm; ipv4: string };
}

type Block = readonly [prefix: bigint, bits: number, cls: AddressClass];

function v4(text: string): bigint {
  return text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/**
 * The eight 16-bit groups of an IPv6 address `isIPv6` accepts (no zone id), a dotted IPv4 tail
 * (`::ffff:1.2.3.4`) read as its two groups.
 * @example ipv6Groups("2001:db8::1.2.3.4") // [0x2001, 0xdb8, 0, 0, 0, 0, 0x102, 0x304]
 */
export function ipv6Groups(text: string): number[] {
  const [head = "", tail] = text.split("::") as [string, string | undefined];
  const groups = (part: string): string[] => (part === "" ? [] : part.split(":"));
  const expand = (parts: string[]): number[] =>
    parts.flatMap((part) => {
      if (!part.includes(".")) return [Number.parseInt(part, 16)];
      const quad = Number(v4(part));
      return [quad >>> 16, quad & 0xffff];
    });
  const left = expand(groups(head));
  const right = tail === undefined ? [] : expand(groups(tail));
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const v6 = (text: string): bigint => ipv6Groups(text).reduce((acc, word) => (acc << 16n) | BigInt(word), 0n);

const block4 = (cidr: string, cls: AddressClass): Block => {
  const [net = "", bits = "32"] = cidr.split("/");
  return [v4(net), Number(bits), cls];
};
const block6 = (cidr: string, cls: AddressClass): Block => {
  const [net = "", bits = "128"] = cidr.split("/");
  return [v6(net), Number(bits), cls];
};

// Most specific first: the first block that holds the address decides.
const IPV4_BLOCKS: readonly Block[] = [
  block4("169.254.169.254/32", "cloud-metadata"), // AWS, GCP, Azure, OpenStack, Oracle
  block4("169.254.170.2/32", "cloud-metadata"), // AWS ECS task credentials
  block4("100.100.100.200/32", "cloud-metadata"), // Alibaba Cloud
  block4("168.63.129.16/32", "cloud-metadata"), // Azure WireServer: a public address with host secrets
  block4("192.0.0.192/32", "cloud-metadata"), // Oracle Cloud Classic
  block4("0.0.0.0/32", "unspecified"),
  block4("255.255.255.255/32", "broadcast"),
  block4("0.0.0.0/8", "this-network"),
  block4("10.0.0.0/8", "private"),
  block4("100.64.0.0/10", "carrier-grade-nat"),
  block4("127.0.0.0/8", "loopback"),
  block4("169.254.0.0/16", "link-local"),
  block4("172.16.0.0/12", "private"),
  block4("192.0.0.0/24", "reserved"), // IETF protocol assignments
  block4("192.0.2.0/24", "documentation"),
  block4("192.88.99.0/24", "reserved"), // 6to4 relay anycast
  block4("192.168.0.0/16", "private"),
  block4("198.18.0.0/15", "reserved"), // benchmarking
  block4("198.51.100.0/24", "documentation"),
  block4("203.0.113.0/24", "documentation"),
  block4("224.0.0.0/4", "multicast"),
  block4("240.0.0.0/4", "reserved"),
];

const IPV6_BLOCKS: readonly Block[] = [
  block6("::/128", "unspecified"),
  block6("::1/128", "loopback"),
  block6("fd00:ec2::254/128", "cloud-metadata"), // AWS IMDS over IPv6
  block6("64:ff9b:1::/48", "reserved"), // local-use NAT64: translated by the site itself
  block6("100::/64", "reserved"), // discard-only
  block6("2001::/23", "reserved"), // IETF protocol assignments, Teredo among them
  block6("2001:db8::/32", "documentation"),
  block6("3fff::/20", "documentation"),
  block6("fc00::/7", "unique-local"),
  block6("fe80::/10", "link-local"),
  block6("fec0::/10", "private"), // deprecated site-local
  block6("ff00::/8", "multicast"),
];

const inBlock = (value: bigint, width: number, [prefix, bits]: Block): boolean =>
  value >> BigInt(width - bits) === prefix >> BigInt(width - bits);

const ALL_32 = 0xffffffffn;

function ipv4Text(value: bigint): string {
  const n = Number(value & ALL_32);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

function classify4(value: bigint): AddressClass {
  return IPV4_BLOCKS.find((block) => inBlock(value, 32, block))?.[2] ?? "public";
}

/** The IPv4 address an IPv6 address stands for, when it is one of the forms that carry one. */
function embedded(value: bigint): { form: EmbeddingForm; ipv4: bigint } | null {
  const high96 = value >> 32n;
  if (high96 === 0xffffn) return { form: "ipv4-mapped", ipv4: value & ALL_32 };
  if (high96 === 0xffff0000n) return { form: "ipv4-translated", ipv4: value & ALL_32 };
  if (high96 === 0n) return { form: "ipv4-compatible", ipv4: value & ALL_32 };
  if (high96 === v6("64:ff9b::") >> 32n) return { form: "nat64", ipv4: value & ALL_32 };
  if (value >> 112n === 0x2002n) return { form: "6to4", ipv4: (value >> 80n) & ALL_32 };
  return null;
}

const verdict = (address: string, cls: AddressClass, via?: AddressVerdict["via"]): AddressVerdict =>
  via
    ? { address, class: cls, allowed: cls === "public", via }
    : { address, class: cls, allowed: cls === "public" };

/**
 * Classifies an IP address (no DNS); only `public` addresses are allowed.
 * @example classifyAddress("::ffff:10.0.0.1") // class "private", via the ipv4-mapped 10.0.0.1
 */
export function classifyAddress(address: string): AddressVerdict {
  if (isIPv4(address)) return verdict(address, classify4(v4(address)));
  const bare = address.replace(/%.*$/, "");
  if (!isIPv6(bare)) return verdict(address, "not-an-address");
  const value = v6(bare.toLowerCase());
  const special = IPV6_BLOCKS.find((block) => inBlock(value, 128, block));
  if (special) return verdict(address, special[2]);
  const inner = embedded(value);
  if (inner) return verdict(address, classify4(inner.ipv4), { form: inner.form, ipv4: ipv4Text(inner.ipv4) });
  // Only global unicast reaches the Internet; the rest of the space is unassigned or special.
  return verdict(address, value >> 125n === 1n ? "public" : "reserved");
}

/** True for 127/8, ::1 and the IPv6 forms of 127/8: what the test-only loopback setting opens. */
export function isLoopback(verdict: AddressVerdict): boolean {
  return verdict.class === "loopback";
}
