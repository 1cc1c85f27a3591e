import type { CircuitStateName } from "../../pipeline/domain/circuit.ts";
import type {
  MessageField,
  SemanticErrorCode,
  SemanticFinding,
  SemanticResult,
  VerifyRequest,
} from "../../pipeline/domain/verify-request.ts";
import { createHttpClient } from "../../pipeline/http.ts";
import { createModelClient, type ModelFailureKind } from "../../pipeline/model-client.ts";
import { createTextViews } from "./checks/text-views.ts";
import { type ModelAnswer, reviewQuestion } from "./semantic-prompt.ts";
import { shareWithJson } from "./shared-json.ts";

export interface SemanticConfig {
  /** OpenAI-compatible API root, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Whole-call limit, connection to last byte; 8000 when not given. */
  timeoutMs?: number;
}

export type SemanticChecker = ((message: VerifyRequest) => Promise<SemanticResult>) & {
  /** The model's circuit breaker when it is not closed, e.g. `{ llm: "open" }` (for /health). */
  circuits?: () => Record<string, CircuitStateName>;
};

const DEFAULT_SEMANTIC_TIMEOUT_MS = 8000;
const MAX_TEXT = 500;
const QUOTE_FIELDS: readonly MessageField[] = ["subject", "body", "recipient", "campaign"];

/** Where a failed review's detail goes: the server's log (stderr), one JSON object per line. */
export type SemanticLog = (line: string) => void;

export const stderrLog: SemanticLog = (line) => process.stderr.write(`${line}\n`);

const ERROR_CODES: Readonly<Record<ModelFailureKind, SemanticErrorCode>> = {
  unavailable: "model_unavailable",
  timeout: "model_timeout",
  invalid: "model_answer_invalid",
};

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

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
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
      if (at >= 0) {
        return {
          kind: base.kind,
          message: base.message,
          quote,
          evidence: views.span(field, at, at + quote.length),
        };
      }
    }
    dropped += 1;
    return base;
  });
  return { findings, dropped };
}

/**
 * The semantic review through a language model behind an OpenAI-compatible chat-completions API, asked
 * once (no retry) within the timeout. Without a configured model every review is `skipped`; a failing,
 * slow or malformed model gives `error`, never `pass`.
 */
/** A skipped review that every request of its kind shares, with its JSON (see shared-json.ts). */
export function sharedSkippedReview(reason: string): SemanticResult {
  return shareWithJson({ status: "skipped", reason, findings: [] });
}

const NO_MODEL = sharedSkippedReview(
  "No language model is configured for the semantic review (base URL and model).",
);

export function createSemanticChecker(
  config: SemanticConfig | undefined,
  options: { log?: SemanticLog } = {},
): SemanticChecker {
  const log = options.log ?? stderrLog;
  if (!config || config.baseUrl.trim() === "" || config.model.trim() === "") {
    return async () => NO_MODEL;
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_SEMANTIC_TIMEOUT_MS;
  const { model, apiKey } = config;
  // Each review is one request for one caller: no retries, and no queue beyond the callers' own limits.
  const client = createHttpClient({
    userAgent: "Research-Picks (verification)",
    retries: 0,
    concurrency: Number.POSITIVE_INFINITY,
    upstreams: { llm: { concurrency: Number.POSITIVE_INFINITY } },
  });
  const reviewer = createModelClient({
    client,
    baseUrl: config.baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs,
  });

  // A model that is down opens the client's circuit after a few failed reviews: the next ones answer
  // model_unavailable at once instead of each waiting out the timeout, and one probe per cool-down
  // finds out when it is back.
  const check: SemanticChecker = async (message) => {
    if (!message.options.llm_check) {
      return {
        status: "skipped",
        model,
        reason: "The request turned the semantic review off (llm_check: false).",
        findings: [],
      };
    }
    const asked = await reviewer.ask(reviewQuestion(message));
    if (!asked.ok) {
      const detail =
        asked.kind === "timeout" ? `the model did not answer within ${timeoutMs} ms` : asked.problem;
      return failedReview(ERROR_CODES[asked.kind], detail, log, model);
    }
    const { answer } = asked;
    const { findings, dropped } = groundFindings(answer, message);
    const note =
      dropped > 0
        ? ` (${dropped} quote${dropped === 1 ? "" : "s"} not found verbatim in the message ${dropped === 1 ? "was" : "were"} dropped)`
        : "";
    return { status: answer.verdict, model, reason: `${oneLine(answer.reason)}${note}`, findings };
  };
  return Object.assign(check, { circuits: () => client.circuits() });
}
