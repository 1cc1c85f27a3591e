import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Failure } from "../../pipeline/domain/submission.ts";
import { type AddressClass, type AddressVerdict, classifyAddress, isLoopback } from "./address-class.ts";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to; tests inject their own to point names anywhere. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export type Resolution = { ok: true; address: string; family: 4 | 6 } | { ok: false; failure: Failure };

const WORDS: Record<AddressClass, string> = {
  public: "public",
  loopback: "a loopback address (this machine)",
  private: "a private-network address",
  "link-local": "a link-local address",
  "carrier-grade-nat": "a carrier-grade NAT address",
  multicast: "a multicast address",
  unspecified: "the unspecified address",
  broadcast: "the broadcast address",
  "this-network": "a this-network (0.0.0.0/8) address",
  "cloud-metadata": "a cloud metadata service address",
  "unique-local": "an IPv6 unique-local (private) address",
  documentation: "a documentation-only address",
  reserved: "a reserved address",
  "not-an-address": "something that is not an IP address",
};

/** What the operator reads about a refused host: the name, the address it has and its kind. */
function refusalDetail(host: string, verdict: AddressVerdict): string {
  const what = verdict.via
    ? `${WORDS[verdict.class]} (${verdict.via.ipv4} in ${verdict.via.form} form)`
    : WORDS[verdict.class];
  const where = host === verdict.address ? `${host} is` : `${host} resolves to ${verdict.address},`;
  return `${where} ${what}`;
}

// What the submitter reads. That the host is not public is theirs to know (they can fix the url);
// which address a name has inside the server's network, and what kind, is not.
const whose = (redirected: boolean) =>
  redirected ? "A page the url redirects to is on a host that" : "The url's host";

const refused = (redirected: boolean, detail: string): Resolution => ({
  ok: false,
  failure: {
    code: "url_refused",
    reason:
      `${whose(redirected)} is not a public Internet address; only pages on public addresses are fetched. ` +
      "Submit a publicly reachable url.",
    detail,
  },
});

const unresolved = (redirected: boolean, detail: string): Resolution => ({
  ok: false,
  failure: {
    code: "dns_failed",
    reason: `${redirected ? "A page the url redirects to names a host that" : "The url's host name"} could not be resolved; check the url.`,
    detail,
  },
});

/**
 * Resolves the url's host once and checks every address it has: one refused address refuses the url,
 * so a name cannot mix a public and a private record to slip past. The caller connects to the address
 * returned, never to the name again.
 */
export async function resolveChecked(
  url: URL,
  lookup: HostLookup,
  allowLoopback: boolean,
  redirected = false,
): Promise<Resolution> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      const code = (error as { code?: string }).code ?? "error";
      return unresolved(redirected, `${host} could not be resolved (${code})`);
    }
  }
  if (addresses.length === 0) return unresolved(redirected, `${host} has no addresses`);
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed && !(allowLoopback && isLoopback(verdict)))
      return refused(redirected, refusalDetail(host, verdict));
  }
  const first = addresses[0] as ResolvedAddress;
  return { ok: true, address: first.address, family: isIP(first.address) === 6 ? 6 : 4 };
}
