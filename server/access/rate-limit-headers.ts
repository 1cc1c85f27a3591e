// IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the policy (quota `q` per
// window `w` seconds) and the current state (remaining `r`, seconds to reset `t`).

export function rateLimitHeaders(
  policy: string,
  quota: number,
  windowSeconds: number,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    "ratelimit-policy": `"${policy}";q=${quota};w=${windowSeconds}`,
    ratelimit: `"${policy}";r=${Math.max(0, remaining)};t=${Math.max(0, Math.ceil(resetSeconds))}`,
  };
}
