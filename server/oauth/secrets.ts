import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto";

// The opaque secrets of the authorization server. Each kind has its prefix, so that one is never
// taken for another (nor for an API key, `rp_labs_...`), and each is stored only as its SHA-256.

const SECRET_PREFIXES = {
  code: "rpac_",
  access: "rpat_",
  refresh: "rprt_",
  client: "rpc_",
  grant: "rpg_",
} as const;

export type SecretKind = keyof typeof SECRET_PREFIXES;

/** 256 random bits, base64url, behind the kind's prefix. */
export const newSecret = (kind: SecretKind): string =>
  `${SECRET_PREFIXES[kind]}${randomBytes(32).toString("base64url")}`;

/** What the store keeps of a secret: it cannot be turned back into the secret. */
export const hashSecret = (secret: string): string => hash("sha256", secret, "hex");

export const isSecretOf = (kind: SecretKind, value: string): boolean =>
  value.startsWith(SECRET_PREFIXES[kind]) && /^[A-Za-z0-9_-]{20,100}$/.test(value);

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether `verifier` is the one whose S256 challenge is `challenge` (RFC 7636 §4.6). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const made = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}
