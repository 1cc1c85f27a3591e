import { request } from "undici";
import type {
  MessageField,
  SemanticErrorCode,
  SemanticFinding,
  SemanticResult,
  VerifyRequest,
} from "../../pipeline/domain/verify-request.ts";
import { createTextViews } from "./checks/text-views.ts";
import { buildCompletionRequest, type ModelAnswer, ModelAnswerSchema } from "./semantic-prompt.ts";

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

/** Where a failed review's detail goes: the server's log (stderr), one JSON object per line. */
export type SemanticLog = (line: string) => void;

export const stderrLog: SemanticLog = (line) => process.stderr.write(`${line}\n`);

/**
 * Thrown inside the checker for every way the model can fail; becomes status `error`. The message is
 * for the operator's log; the caller of the API only gets the code's sentence.
 */
class ModelFailure extends Error {
  readonly code: SemanticErrorCode;
  constructor(code: SemanticErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

const invalid = (message: string) => new ModelFailure("model_answer_invalid", message);

/** What a failed review says publicly: no status codes, bodies, addresses or error names of the model's side. */
export const SEMANTIC_ERROR_REASONS: Readonly<Record<SemanticErrorCode, string>> = {
  model_unavailable: "The semantic review failed: the language model is unavailable right now.",
  model_timeout: "The semantic review failed: the language model did not answer in time.",
  model_answer_invalid: "The semantic review failed: the language model's answer could not be used.",
  review_failed: "The semantic review failed unexpectedly.",
};

/** The public `error` result of a failed review; `log` gets the detail as a structured line. */
export function failedReview(
  code: SemanticErrorCode,
  detail: string,
  log: SemanticLog,
  model?: string,
): SemanticResult {
  log(JSON.stringify({ event: "verify_semantic_failed", code, ...(model ? { model } : {}), detail }));
  return {
    status: "error",
    code,
    ...(model ? { model } : {}),
    reason: SEMANTIC_ERROR_REASONS[code],
    findings: [],
  };
}

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
    if (size > MAX_ANSWER_BYTES) throw invalid(`the model's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

function contentOf(envelope: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelope);
  } catch {
    throw invalid("the model endpoint answered with a body that is not JSON");
  }
  const message = (parsed as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] })
    ?.choices?.[0]?.message;
  if (typeof message?.refusal === "string" && message.refusal.length > 0) {
    throw invalid(`the model refused: ${oneLine(message.refusal, 200)}`);
  }
  if (typeof message?.content !== "string") {
    throw invalid("the model endpoint's answer has no choices[0].message.content string");
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
    throw invalid(`the model's answer is not valid JSON (${(error as Error).message})`);
  }
  const result = ModelAnswerSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    throw invalid(
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

function classify(
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
): { code: SemanticErrorCode; detail: string } {
  if (timedOut) return { code: "model_timeout", detail: `the model did not answer within ${timeoutMs} ms` };
  if (error instanceof ModelFailure) return { code: error.code, detail: error.message };
  const code = (error as { code?: unknown })?.code;
  const detail = error instanceof Error ? error.message : String(error);
  return {
    code: "model_unavailable",
    detail: `the model request failed (${typeof code === "string" ? `${code}: ` : ""}${oneLine(detail, 200)})`,
  };
}

/**
 * The semantic review through a language model behind an OpenAI-compatible chat-completions API.
 * Without a configured model every review is `skipped`; a failing, slow or malformed model gives
 * `error`, never `pass`.
 */
export function createSemanticChecker(
  config: SemanticConfig | undefined,
  options: { log?: SemanticLog } = {},
): SemanticChecker {
  const log = options.log ?? stderrLog;
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
          "model_unavailable",
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
      const { code, detail } = classify(error, signal.aborted, timeoutMs);
      return failedReview(code, detail, log, model);
    }
  };
}
