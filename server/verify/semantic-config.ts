import type { SemanticConfig } from "./semantic.ts";

/**
 * The semantic model's configuration from environment variables: VERIFY_LLM_BASE_URL, VERIFY_LLM_API_KEY,
 * VERIFY_LLM_MODEL and VERIFY_LLM_TIMEOUT_MS, each falling back to LLM_BASE_URL, LLM_API_KEY, LLM_MODEL.
 * Undefined (the review is skipped) unless a base URL and a model are both set.
 */
export function semanticConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): SemanticConfig | undefined {
  const pick = (name: string): string | undefined => {
    const value = env[`VERIFY_${name}`]?.trim() || env[name]?.trim();
    return value ? value : undefined;
  };
  const baseUrl = pick("LLM_BASE_URL");
  const model = pick("LLM_MODEL");
  if (!baseUrl || !model) return undefined;
  const apiKey = pick("LLM_API_KEY");
  const timeout = Number(env.VERIFY_LLM_TIMEOUT_MS);
  return {
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
  };
}
