// Address syntax shared by the recipient check and the personal-data scan (RFC 5321 sizes, dot-atom local
// parts, DNS host names). Quoted local parts and address literals are legal but never what an agent
// should write, so they count as wrong here.

// Non-ASCII letters are allowed: SMTPUTF8 (RFC 6531) mailboxes such as jörg@müller.de.
const LOCAL_CHAR = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\p{L}\p{N}\p{M}-]+$/u;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LABEL = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

/** Why a host name is unusable, or undefined when it is a plausible public DNS name. */
export function hostProblem(host: string): string | undefined {
  if (host.length === 0) return "the domain is empty";
  if (host.length > 253) return "the domain is longer than 253 characters";
  const labels = host.split(".");
  if (labels.length < 2) return `the domain '${host}' has no top-level domain`;
  for (const label of labels) {
    if (!LABEL.test(label)) return `the domain label '${label.slice(0, 63)}' is not a valid DNS label`;
  }
  if (!TOP_LABEL.test(labels[labels.length - 1] ?? ""))
    return `the top-level domain of '${host}' is not valid`;
  return undefined;
}

/** Host to ASCII (punycode) through the URL parser; undefined when it cannot be a host. */
export function asciiHost(host: string): string | undefined {
  if (/^[\x21-\x7e]*$/.test(host)) return host.toLowerCase();
  const url = `http://${host}/`;
  return URL.canParse(url) ? new URL(url).hostname : undefined;
}

/** Why `address` is not a deliverable bare address, or undefined when it is fine. */
export function addressProblem(address: string): string | undefined {
  if (address !== address.trim()) return "it has leading or trailing whitespace";
  if (/\s/.test(address)) return "it contains whitespace";
  if (address.includes("<") || address.includes(">")) {
    return "it has angle brackets; give the bare address, e.g. jane@example.com, without a display name";
  }
  const at = address.lastIndexOf("@");
  if (at < 0) return "it has no '@'";
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length === 0) return "nothing comes before the '@'";
  if (local.length > 64) return "the part before the '@' is longer than 64 characters";
  if (address.length > 254) return "it is longer than 254 characters";
  if (local.startsWith('"')) return "quoted local parts are not accepted";
  if (!LOCAL_CHAR.test(local)) return `the part before the '@' has characters an address cannot hold`;
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) {
    return "the part before the '@' has a leading, trailing or doubled dot";
  }
  if (domain.startsWith("[")) return "IP address literals are not accepted as the domain";
  const host = asciiHost(domain);
  if (host === undefined) return `the domain '${domain}' is not a valid host name`;
  return hostProblem(host);
}

const ROLE_LOCAL_PARTS = new Set(
  (
    "abuse admin billing careers contact feedback hello help info jobs marketing newsletter noreply " +
    "no-reply donotreply do-not-reply office postmaster press privacy sales security support team " +
    "unsubscribe webmaster"
  ).split(" "),
);

/** Organisational mailboxes (support@, noreply@...) that carry no one's personal data. */
export function isRoleAddress(address: string): boolean {
  const local = address.slice(0, address.lastIndexOf("@")).toLowerCase();
  return ROLE_LOCAL_PARTS.has(local.split("+")[0] ?? local);
}

/** No-reply mailboxes nobody reads. */
export function isNoReplyAddress(address: string): boolean {
  const local = address.slice(0, address.lastIndexOf("@")).toLowerCase().replace(/[-_.]/g, "");
  return local === "noreply" || local === "donotreply";
}

const RESERVED_DOMAINS = [
  "example.com",
  "example.org",
  "example.net",
  "test",
  "example",
  "invalid",
  "localhost",
];

/** Domains reserved for documentation and tests (RFC 2606), where mail never arrives. */
export function isReservedDomain(address: string): boolean {
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  return RESERVED_DOMAINS.some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}
