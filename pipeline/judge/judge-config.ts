export interface JudgeConfig {
  /** OpenAI-compatible API root, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** One request, connection to last byte. */
  timeoutMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** USD per million tokens; cost is reported only when both are set. */
  inputPricePerMTok?: number;
  outputPricePerMTok?: number;
}

export const DEFAULT_JUDGE_TIMEOUT_MS = 60_000;
export const DEFAULT_JUDGE_CONCURRENCY = 4;

function positive(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`Expected \`${name}\` to be a number >= 0, got \`${raw}\``);
  return value;
}

/**
 * The judge's configuration from LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, LLM_TIMEOUT_MS, LLM_CONCURRENCY,
 * LLM_INPUT_USD_PER_MTOK and LLM_OUTPUT_USD_PER_MTOK. Undefined unless a base URL and a model are set.
 * Throws on a malformed number, naming the variable.
 */
export function judgeConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): JudgeConfig | undefined {
  const baseUrl = env.LLM_BASE_URL?.trim();
  const model = env.LLM_MODEL?.trim();
  if (!baseUrl || !model) return undefined;
  const apiKey = env.LLM_API_KEY?.trim();
  const timeout = positive(env, "LLM_TIMEOUT_MS");
  const concurrency = positive(env, "LLM_CONCURRENCY");
  const input = positive(env, "LLM_INPUT_USD_PER_MTOK");
  const output = positive(env, "LLM_OUTPUT_USD_PER_MTOK");
  return {
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: timeout && timeout > 0 ? timeout : DEFAULT_JUDGE_TIMEOUT_MS,
    concurrency: concurrency && concurrency >= 1 ? Math.floor(concurrency) : DEFAULT_JUDGE_CONCURRENCY,
    ...(input === undefined ? {} : { inputPricePerMTok: input }),
    ...(output === undefined ? {} : { outputPricePerMTok: output }),
  };
}
