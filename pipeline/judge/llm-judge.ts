import type { Candidate } from "../domain/candidate.ts";
import type { ScoringRun } from "../domain/run-record.ts";
import type { Scores } from "../domain/score.ts";
import type { HttpClient } from "../http.ts";
import { createModelClient } from "../model-client.ts";
import type { CandidateScorer } from "../screen.ts";
import { answerToScores, type JudgeAnswer } from "./judge-answer.ts";
import type { JudgeCache } from "./judge-cache.ts";
import type { JudgeConfig } from "./judge-config.ts";
import { evidenceRubric } from "./judge-evidence.ts";
import { JUDGE_PROMPT_VERSION, judgeInstructions, judgeQuestion } from "./judge-prompt.ts";

export interface LlmJudgeOptions {
  client: HttpClient;
  config: JudgeConfig;
  /** Answers already paid for; a rerun of the same day costs nothing. */
  cache?: JudgeCache;
  now: () => Date;
}

/**
 * Scores candidates with a language model behind an OpenAI-compatible chat-completions API: one request
 * per candidate, all nine axes and REG FIT in one JSON-schema answer. The candidate's text goes in as a
 * delimited data block, and each answer is held to what its quotes from that text support (see
 * answerToScores). A candidate whose request fails or whose answer does not validate is scored by the
 * rules scorer instead, and the run records why.
 */
export function createLlmJudge(options: LlmJudgeOptions): CandidateScorer {
  const { config, cache } = options;
  const model = createModelClient({
    client: options.client,
    baseUrl: config.baseUrl,
    model: config.model,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    timeoutMs: config.timeoutMs,
  });

  return {
    async score(candidates, { rubric, rules, progress }) {
      const instructions = judgeInstructions(rubric);
      const grounds = evidenceRubric(rubric);
      const checked = (answer: JudgeAnswer, candidate: Candidate) =>
        answerToScores(answer, candidate, rules(candidate), grounds);
      const usage = { requests: 0, prompt_tokens: 0, completion_tokens: 0 };
      const run: Omit<ScoringRun, "usage"> = {
        scorer: "llm",
        model: config.model,
        llm_scored: 0,
        cache_hits: 0,
        fallbacks: [],
      };
      const fallback = (candidate: Candidate, reason: string): Scores => {
        run.fallbacks.push({ id: candidate.id, reason });
        return rules(candidate);
      };

      async function judge(candidate: Candidate): Promise<Scores> {
        const key = {
          candidateId: candidate.id,
          rubricVersion: rubric.version,
          model: config.model,
          promptVersion: JUDGE_PROMPT_VERSION,
        };
        const cached = await cache?.get(key);
        if (cached) {
          run.cache_hits += 1;
          run.llm_scored += 1;
          return checked(cached, candidate);
        }
        usage.requests += 1;
        const asked = await model.ask(judgeQuestion(instructions, candidate));
        usage.prompt_tokens += asked.usage.promptTokens;
        usage.completion_tokens += asked.usage.completionTokens;
        if (!asked.ok) return fallback(candidate, asked.problem);
        const answer = asked.answer;
        // A cache that cannot be written costs a repeat request next time, not this run.
        await cache?.set(key, answer, options.now().toISOString()).catch(() => {});
        run.llm_scored += 1;
        return checked(answer, candidate);
      }

      let done = 0;
      const step = Math.max(1, Math.ceil(candidates.length / 10));
      const scores = await Promise.all(
        candidates.map(async (candidate) => {
          const scored = await judge(candidate);
          done += 1;
          if (done % step === 0 || done === candidates.length) {
            progress(
              `judged ${done}/${candidates.length} (${run.cache_hits} cached, ${run.fallbacks.length} fell back)`,
            );
          }
          return scored;
        }),
      );
      const priced = config.inputPricePerMTok !== undefined && config.outputPricePerMTok !== undefined;
      const cost = priced
        ? (usage.prompt_tokens * (config.inputPricePerMTok ?? 0) +
            usage.completion_tokens * (config.outputPricePerMTok ?? 0)) /
          1e6
        : null;
      run.fallbacks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return {
        scores,
        run: { ...run, usage: { ...usage, cost_usd: cost === null ? null : Math.round(cost * 1e6) / 1e6 } },
      };
    },
  };
}
