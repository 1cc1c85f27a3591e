/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1, the scheme's case ignored);
 * null for any other header or none. Both /mcp (API keys and access tokens) and /metrics read it here.
 *
 * @example bearerToken("Bearer rpat_abc") // "rpat_abc"
 */
export const bearerToken = (header: string | null | undefined): string | null =>
  /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? null;
