import { z } from "zod";
import type { HttpClient } from "./http.ts";
import { HttpError, type HttpFailureKind, oneLine } from "./http-rules.ts";

// The one OpenAI-compatible chat-completions client: the judge and the verification playground's
// semantic check both ask their questions through it, on the one outbound HTTP client.

export interface ModelClientOptions {
  /** Its retries, politeness and counts apply (upstream `llm`). */
  client: HttpClient;
  /** OpenAI-compatible API root, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** One attempt, connection to last byte. */
  timeoutMs: number;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** One question to the model, and the schema its JSON answer must match. */
export interface ModelQuestion<T> {
  messages: ChatMessage[];
  /** Sent as `response_format` (OpenAI `json_schema`). */
  responseFormat: Record<string, unknown>;
  answer: z.ZodType<T>;
  temperature?: number;
}

/** Tokens the endpoint billed; 0 when it does not say. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

/** `unavailable`: no 2xx answer; `timeout`: none in time; `invalid`: an answer that cannot be used. */
export type ModelFailureKind = "unavailable" | "timeout" | "invalid";

export type ModelResult<T> =
  | { ok: true; answer: T; usage: ModelUsage }
  | { ok: false; kind: ModelFailureKind; problem: string; usage: ModelUsage };

export interface ModelClient {
  readonly model: string;
  /** Every way the model can fail is a result; only a bug throws. */
  ask<T>(question: ModelQuestion<T>): Promise<ModelResult<T>>;
}

/** No usable answer is near this size (a judge's is a few kilobytes); a larger one is not read. */
export const MAX_MODEL_ANSWER_BYTES = 1 << 20;

// The envelope is read leniently: a usage block in an odd shape costs the token count, not the answer.
const TokenCount = z.int().min(0).catch(0);
const EnvelopeSchema = z.object({
  choices: z
    .array(
      z
        .object({
          finish_reason: z.unknown().optional(),
          message: z.object({ content: z.unknown().optional(), refusal: z.unknown().optional() }).optional(),
        })
        .optional()
        .catch(undefined),
    )
    .catch([]),
  usage: z
    .object({ prompt_tokens: TokenCount, completion_tokens: TokenCount })
    .catch({ prompt_tokens: 0, completion_tokens: 0 }),
});

const FAILURE_KINDS: Readonly<Record<HttpFailureKind, ModelFailureKind>> = {
  status: "unavailable",
  network: "unavailable",
  timeout: "timeout",
  "too-large": "invalid",
  open: "unavailable",
};

/** The message content as a `T`, or why it is not one. */
function readAnswer<T>(content: string, schema: z.ZodType<T>): { answer: T } | { problem: string } {
  // Some servers wrap the JSON in a Markdown fence despite the response format; the fence carries nothing.
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?[ \t]*\n?/, "")
    .replace(/\n?```$/, "");
  let json: unknown;
  try {
    json = JSON.parse(unfenced);
  } catch (error) {
    return { problem: `the model's answer is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { answer: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return {
    problem: `the model's answer does not match the expected schema (${where}${issue?.message ?? "invalid"})`,
  };
}

/**
 * A model behind an OpenAI-compatible chat-completions API, asked for one JSON answer at a time
 * through the HTTP client (as upstream `llm`). The answer is read to at most MAX_MODEL_ANSWER_BYTES and checked
 * against the question's schema; what the endpoint billed is counted even when the answer is unusable.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const { client, model, timeoutMs } = options;
  const url = `${options.baseUrl.trim().replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  return {
    model,
    async ask(question) {
      const body = JSON.stringify({
        model,
        ...(question.temperature === undefined ? {} : { temperature: question.temperature }),
        messages: question.messages,
        response_format: question.responseFormat,
      });
      let text: string;
      try {
        const maxBodyBytes = MAX_MODEL_ANSWER_BYTES;
        ({ text } = await client.send({
          url,
          method: "POST",
          upstream: "llm",
          headers,
          body,
          timeoutMs,
          maxBodyBytes,
        }));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const problem = `the model request failed: ${error.message}`;
        return {
          ok: false,
          kind: FAILURE_KINDS[error.kind],
          problem,
          usage: { promptTokens: 0, completionTokens: 0 },
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const envelope = EnvelopeSchema.safeParse(json);
      const usage = envelope.success
        ? {
            promptTokens: envelope.data.usage.prompt_tokens,
            completionTokens: envelope.data.usage.completion_tokens,
          }
        : { promptTokens: 0, completionTokens: 0 };
      const invalid = (problem: string) => ({ ok: false, kind: "invalid", problem, usage }) as const;
      if (json === undefined) return invalid("the model endpoint answered with a body that is not JSON");
      const choice = envelope.data?.choices[0];
      const { content, refusal } = choice?.message ?? {};
      if (typeof refusal === "string" && refusal)
        return invalid(`the model refused: ${oneLine(refusal, 200)}`);
      if (choice?.finish_reason === "length")
        return invalid("the model's answer was cut off (finish_reason: length)");
      if (typeof content !== "string")
        return invalid("the model endpoint's answer has no choices[0].message.content string");
      const read = readAnswer(content, question.answer);
      return "problem" in read ? invalid(read.problem) : { ok: true, answer: read.answer, usage };
    },
  };
}
