import { request } from "undici";
import type {
  MessageField,
  SemanticFinding,
  SemanticResult,
  VerifyRequest,
} from "../../pipeline/domain/verify-request.ts";
import { buildCompletionRequest, type ModelAnswer, ModelAnswerSchema } from "./semantic-prompt.ts";
import { createTextViews } from "./text-views.ts";

export interface SemanticConfig {
  /** OpenAI-compatible API root, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Whole-call limit, connection to last byte; 8000 when not given. */
  timeoutMs?: number;
}

export type SemanticChecker = (message: VerifyRequest) => Promise<SemanticResult>;

export const DEFAULT_SEMANTIC_TIMEOUT_MS = 8000;
const MAX_ANSWER_BYTES = 1 << 20;
const MAX_TEXT = 500;
const QUOTE_FIELDS: readonly MessageField[] = ["subject", "body", "recipient", "campaign"];

/** Thrown inside the checker for every way the model can fail; becomes status `error`. */
class ModelFailure extends Error {}

function oneLine(text: string, max = MAX_TEXT): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function endpoint(baseUrl: string): string {
  let end = baseUrl.length;
  while (end > 0 && baseUrl.charAt(end - 1) === "/") end -= 1;
  return `${baseUrl.slice(0, end)}/chat/completions`;
}

async function readLimited(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES)
      throw new ModelFailure(`the model's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

function contentOf(envelope: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelope);
  } catch {
    throw new ModelFailure("the model endpoint answered with a body that is not JSON");
  }
  const message = (parsed as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] })
    ?.choices?.[0]?.message;
  if (typeof message?.refusal === "string" && message.refusal.length > 0) {
    throw new ModelFailure(`the model refused: ${oneLine(message.refusal, 200)}`);
  }
  if (typeof message?.content !== "string") {
    throw new ModelFailure("the model endpoint's answer has no choices[0].message.content string");
  }
  return message.content;
}

function answerOf(content: string): ModelAnswer {
  // Some servers wrap the JSON in a Markdown fence despite response_format; the fence carries nothing.
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?[ \t]*\n?/, "")
    .replace(/\n?```$/, "");
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced);
  } catch (error) {
    throw new ModelFailure(`the model's answer is not valid JSON (${(error as Error).message})`);
  }
  const result = ModelAnswerSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    throw new ModelFailure(
      `the model's answer does not match the expected schema (${where}${issue?.message ?? "invalid"})`,
    );
  }
  return result.data;
}

/** Keeps a quote only where it occurs verbatim in the message, with its span there. */
function groundFindings(
  answer: ModelAnswer,
  message: VerifyRequest,
): { findings: SemanticFinding[]; dropped: number } {
  const views = createTextViews(message);
  let dropped = 0;
  const findings = answer.findings.map((finding): SemanticFinding => {
    const base = { kind: finding.kind, message: oneLine(finding.message) };
    const quote = finding.quote;
    if (quote === null || quote.length === 0) return base;
    for (const field of QUOTE_FIELDS) {
      const at = views.text(field).indexOf(quote);
      if (at >= 0) return { ...base, quote, evidence: views.span(field, at, at + quote.length) };
    }
    dropped += 1;
    return base;
  });
  return { findings, dropped };
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `the model did not answer within ${timeoutMs} ms`;
  if (error instanceof ModelFailure) return error.message;
  const code = (error as { code?: unknown })?.code;
  const detail = error instanceof Error ? error.message : String(error);
  return `the model request failed (${typeof code === "string" ? `${code}: ` : ""}${oneLine(detail, 200)})`;
}

/**
 * The semantic review through a language model behind an OpenAI-compatible chat-completions API.
 * Without a configured model every review is `skipped`; a failing, slow or malformed model gives
 * `error`, never `pass`.
 */
export function createSemanticChecker(config: SemanticConfig | undefined): SemanticChecker {
  if (!config || config.baseUrl.trim() === "" || config.model.trim() === "") {
    return async () => ({
      status: "skipped",
      reason: "No language model is configured for the semantic review (base URL and model).",
      findings: [],
    });
  }
  const url = endpoint(config.baseUrl.trim());
  const timeoutMs = config.timeoutMs ?? DEFAULT_SEMANTIC_TIMEOUT_MS;
  const { model, apiKey } = config;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  return async (message) => {
    if (!message.options.llm_check) {
      return {
        status: "skipped",
        model,
        reason: "The request turned the semantic review off (llm_check: false).",
        findings: [],
      };
    }
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(url, {
        method: "POST",
        headers,
        body: JSON.stringify(buildCompletionRequest(model, message)),
        signal,
      });
      const text = await readLimited(response.body);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw new ModelFailure(
          `the model endpoint answered HTTP ${response.statusCode}: ${oneLine(text, 200)}`,
        );
      }
      const answer = answerOf(contentOf(text));
      const { findings, dropped } = groundFindings(answer, message);
      const note =
        dropped > 0
          ? ` (${dropped} quote${dropped === 1 ? "" : "s"} not found verbatim in the message ${dropped === 1 ? "was" : "were"} dropped)`
          : "";
      return { status: answer.verdict, model, reason: `${oneLine(answer.reason)}${note}`, findings };
    } catch (error) {
      const reason = `The semantic review failed: ${describeFailure(error, signal.aborted, timeoutMs)}.`;
      return { status: "error", model, reason, findings: [] };
    }
  };
}
