// Wires `picks curate` to the outside world from its flags and the environment: the arXiv source, the
// citation indexes, the language-model judge, and the one HTTP client they share. Offline sources stay
// offline unless an upstream URL is configured explicitly.

import { join } from "node:path";
import { type CitationLookup, createCitationLookup } from "../pipeline/citations/citation-lookup.ts";
import { createHttpClient, type HttpClient } from "../pipeline/http.ts";
import { userAgent } from "../pipeline/http-rules.ts";
import { createJudgeCache } from "../pipeline/judge/judge-cache.ts";
import { judgeConfigFromEnv } from "../pipeline/judge/judge-config.ts";
import { createLlmJudge } from "../pipeline/judge/llm-judge.ts";
import type { CandidateScorer } from "../pipeline/screen.ts";
import { type ArxivTexts, DEFAULT_ARXIV_API_URL, lookupArxivTexts } from "../pipeline/sources/arxiv-api.ts";
import { HISTORY_PAGE_SIZE } from "../pipeline/sources/arxiv-history.ts";
import {
  type ArxivSource,
  createArxivSource,
  DEFAULT_ARXIV_LISTING_URL,
} from "../pipeline/sources/arxiv-source.ts";
import { UsageError } from "./output.ts";
import { PROJECT_ROOT } from "./paths.ts";
import { VERSION } from "./version.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** arXiv asks for one request every 3 seconds; only a mirror or a test fake may be asked faster. */
export const ARXIV_MIN_INTERVAL_MS = 3000;

export interface LiveOptions {
  /** `arxiv-history`: past days from the query API only (`picks backfill`), no listing. */
  source: "arxiv" | "arxiv-history" | "sample" | "file";
  categories: readonly string[];
  citations: boolean;
  judge: "rules" | "llm";
  env: Env;
}

export interface LiveSetup {
  arxiv?: ArxivSource;
  scorer?: CandidateScorer;
  citations?: CitationLookup;
  citationsSkipped: string;
  client?: HttpClient;
  /** The query API the arXiv source completes the listing from, and `picks backfill` reads. */
  arxivApiUrl: string;
  /**
   * The readers' pending library items asked of the query API (server/readers/pending-lookup.ts): with
   * the arXiv source, or an offline one given ARXIV_API_URL explicitly.
   */
  arxivLookup?: (ids: readonly string[]) => Promise<ArxivTexts>;
}

const set = (env: Env, name: string): string | undefined => env[name]?.trim() || undefined;

function wholeNumber(env: Env, name: string): number | undefined {
  const raw = set(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`Expected \`${name}\` to be a whole number, got \`${raw}\``);
  return Number(raw);
}

function isArxivHost(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "arxiv.org" || host.endsWith(".arxiv.org");
  } catch {
    throw new UsageError(`Expected an http(s) URL, got \`${url}\``);
  }
}

/** The spacing of arXiv requests: ARXIV_MIN_INTERVAL_MS, never below 3 s when a URL is arxiv.org. */
export function arxivInterval(env: Env, listingUrl: string, apiUrl: string): number {
  const asked = wholeNumber(env, "ARXIV_MIN_INTERVAL_MS");
  if (asked === undefined) return ARXIV_MIN_INTERVAL_MS;
  const real = isArxivHost(listingUrl) || isArxivHost(apiUrl);
  return real ? Math.max(asked, ARXIV_MIN_INTERVAL_MS) : asked;
}

/**
 * Entries per page of `picks backfill`: HISTORY_PAGE_SIZE, or ARXIV_PAGE_SIZE from 100 to 2000 (arXiv's
 * own bounds); a mirror or a test fake may ask for pages as small as one entry.
 */
export function arxivPageSize(env: Env, apiUrl: string): number {
  const asked = wholeNumber(env, "ARXIV_PAGE_SIZE");
  if (asked === undefined) return HISTORY_PAGE_SIZE;
  const [min, max] = isArxivHost(apiUrl) ? [100, 2000] : [1, 2000];
  if (asked < min || asked > max) {
    throw new UsageError(`Expected \`ARXIV_PAGE_SIZE\` to be from ${min} to ${max}, got \`${asked}\``);
  }
  return asked;
}

/** The arXiv query API: ARXIV_API_URL, or arXiv's own. */
export const arxivApiUrl = (env: Env): string => set(env, "ARXIV_API_URL") ?? DEFAULT_ARXIV_API_URL;

export function createLiveSetup(options: LiveOptions): LiveSetup {
  const { env } = options;
  const contact = set(env, "PICKS_CONTACT");
  const listingUrl = set(env, "ARXIV_LISTING_URL") ?? DEFAULT_ARXIV_LISTING_URL;
  const apiUrl = arxivApiUrl(env);
  const judgeConfig = (() => {
    try {
      return judgeConfigFromEnv(env);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  })();
  if (options.judge === "llm" && !judgeConfig) {
    throw new UsageError("`--judge llm` needs LLM_BASE_URL and LLM_MODEL in the environment");
  }

  const offline = options.source !== "arxiv" && options.source !== "arxiv-history";
  const s2Url = set(env, "S2_API_URL");
  const openAlexUrl = set(env, "OPENALEX_URL");
  let citationsSkipped = "";
  if (!options.citations) citationsSkipped = "turned off with --no-citations";
  else if (offline && !s2Url && !openAlexUrl) {
    citationsSkipped = `offline source (${options.source}): set S2_API_URL or OPENALEX_URL to look citations up`;
  }
  const wantsCitations = citationsSkipped === "";
  const wantsLookups = !offline || set(env, "ARXIV_API_URL") !== undefined;
  if (!wantsCitations && !wantsLookups && options.judge === "rules")
    return { citationsSkipped, arxivApiUrl: apiUrl };

  const timeoutMs = wholeNumber(env, "PICKS_HTTP_TIMEOUT_MS");
  const retries = wholeNumber(env, "PICKS_HTTP_RETRIES");
  const backoffBaseMs = wholeNumber(env, "PICKS_HTTP_BACKOFF_MS");
  const client = createHttpClient({
    userAgent: userAgent("Research-Picks", VERSION, contact),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retries === undefined ? {} : { retries }),
    ...(backoffBaseMs === undefined ? {} : { backoffBaseMs }),
    upstreams: {
      arxiv: {
        concurrency: 1,
        minIntervalMs: arxivInterval(env, options.source === "arxiv" ? listingUrl : apiUrl, apiUrl),
      },
      semantic_scholar: { concurrency: 1, minIntervalMs: 1000 },
      openalex: { concurrency: 2, minIntervalMs: 100 },
      llm: { concurrency: judgeConfig?.concurrency ?? 1 },
    },
  });
  const setup: LiveSetup = { citationsSkipped, client, arxivApiUrl: apiUrl };
  if (options.source === "arxiv") {
    setup.arxiv = createArxivSource({ client, categories: options.categories, listingUrl, apiUrl });
  }
  if (wantsLookups) setup.arxivLookup = (ids) => lookupArxivTexts({ client, apiUrl }, ids);
  if (wantsCitations) {
    const s2Key = set(env, "S2_API_KEY");
    const openAlexKey = set(env, "OPENALEX_API_KEY");
    const mailto = contact?.includes("@") ? contact.replace(/^mailto:/, "") : undefined;
    // An offline source uses only the indexes whose URL is given: it never reaches the public ones.
    const semanticScholar = {
      client,
      ...(s2Url ? { baseUrl: s2Url } : {}),
      ...(s2Key ? { apiKey: s2Key } : {}),
    };
    const openAlex = {
      client,
      ...(openAlexUrl ? { baseUrl: openAlexUrl } : {}),
      ...(openAlexKey ? { apiKey: openAlexKey } : {}),
      ...(mailto ? { mailto } : {}),
    };
    setup.citations = createCitationLookup({
      ...(!offline || s2Url ? { semanticScholar } : {}),
      ...(!offline || openAlexUrl ? { openAlex } : {}),
      now: () => new Date(),
    });
  }
  if (options.judge === "llm" && judgeConfig) {
    const cacheDir = set(env, "JUDGE_CACHE_DIR") ?? join(PROJECT_ROOT, ".state", "judge-cache");
    setup.scorer = createLlmJudge({
      client,
      config: judgeConfig,
      cache: createJudgeCache(cacheDir),
      now: () => new Date(),
    });
  }
  return setup;
}
