import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { CompiledRelevance } from "../pipeline/domain/relevance-model.ts";
import { createKeyService, type KeyService } from "./access/key-service.ts";
import { type BenchStore, createBenchStore } from "./bench/bench-store.ts";
import type { ServerConfig } from "./config.ts";
import { createHostedMcp, type HostedMcp } from "./mcp/hosted-mcp.ts";
import { createHostedSnapshots } from "./mcp/hosted-snapshots.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { type ClientMetadataFetcher, createClientMetadataFetcher } from "./oauth/client-metadata.ts";
import { createGrants, type Grants } from "./oauth/grants.ts";
import { deferredReaderService } from "./readers/deferred-reader-service.ts";
import { createReaderService, type ReaderService } from "./readers/reader-service.ts";
import { publishedScreenedSource } from "./readers/screened-source.ts";
import { createPapersAnswers, type PapersAnswers } from "./snapshots/papers-answers.ts";
import type { SnapshotCache } from "./snapshots/snapshot-cache.ts";
import type { Store } from "./store/types.ts";
import {
  createSubmissionService,
  type SubmissionService,
  type SubmissionServiceOptions,
} from "./submissions/submission-service.ts";
import { createSemanticChecker, type SemanticChecker } from "./verify/semantic.ts";
import { scoredEventWrites } from "./webhooks/scored-event.ts";
import {
  createWebhookService,
  type WebhookService,
  type WebhookServiceOptions,
} from "./webhooks/webhook-service.ts";

/** Everything the HTTP app needs, passed in so tests can build it in-process. */
export interface AppContext {
  version: string;
  snapshots: SnapshotCache;
  store: Store;
  keys: KeyService;
  /** Bench-as-a-Service firms' state, in the same store under `bench:`. */
  bench: BenchStore;
  submissions: SubmissionService;
  webhooks: WebhookService;
  config: ServerConfig;
  /** Secret for hashing client addresses into store keys (plain hashes of IPv4 addresses can be reversed). */
  ipSecret: string;
  /** Secret keying the consent form's CSRF tokens: its own, so that no use of one secret serves the other. */
  csrfSecret: string;
  now: () => number;
  log: (message: string) => void;
  /** The verification playground's language-model review; "skipped" when no model is configured. */
  semantic: SemanticChecker;
  /** The hosted MCP's authorization server: clients, codes and tokens that act as a key. */
  oauth: Grants;
  /** Clients described by a metadata document at their https client_id. */
  clientMetadata: ClientMetadataFetcher;
  /** The bytes of GET /v1/papers answers, kept per snapshot generation. */
  papers: PapersAnswers;
  /** The hosted MCP server, with its answers kept per snapshot generation. */
  mcp: HostedMcp;
  /**
   * The ends of the per-address limits' windows (access/ip-limit.ts) as far as this process knows
   * them, each kept until it passes. Keys are a limit's name and an address's hash: a fixed length.
   */
  windowEnds: LRUCache<string, number>;
  /** Readers' profiles per key and their personal lists. */
  readers: ReaderService;
  /** This app's Prometheus registry and counters: another app in the process has its own. */
  metrics: ServiceMetrics;
}

/**
 * A secret of the service, made once and kept in the store, so every process sharing a store holds the
 * same: the same client is counted under the same key, and a form made by one process is taken by another.
 */
async function storedSecret(store: Store, name: "config:ip-secret" | "config:csrf-secret"): Promise<string> {
  await store.setIfAbsent(name, randomBytes(32).toString("hex"));
  return (await store.getItem<string>(name)) as string;
}

export async function createContext(options: {
  version: string;
  snapshots: SnapshotCache;
  store: Store;
  config: ServerConfig;
  now?: () => number;
  log?: (message: string) => void;
  semantic?: SemanticChecker;
  /** The scorer of submissions, with fetch and worker settings and the host lookup (tests inject them). */
  submissions: SubmissionServiceOptions;
  /** Delivery settings, the host lookup and the jitter's randomness (tests inject them). */
  webhooks?: WebhookServiceOptions;
  /**
   * The shipped relevance model: personal models read papers with its vocabulary. Without one, a
   * reader's list is the global order with their follows pinned. A function is called at the readers'
   * first call, for a server that should not read the model before it answers.
   */
  relevance?: CompiledRelevance | null | (() => Promise<CompiledRelevance | null>);
  /** The app's metrics, when the caller serves them before the context exists (METRICS_PORT). */
  metrics?: ServiceMetrics;
}): Promise<AppContext> {
  const { submissions, webhooks: webhookOptions, relevance = null, ...rest } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const metrics = options.metrics ?? createServiceMetrics();
  const webhooks = createWebhookService(
    { store: options.store, now, log, countDelivery: metrics.countDelivery },
    webhookOptions,
  );
  const scored = withScoredEvent(webhooks, submissions.onScored);
  const keys = createKeyService({ store: options.store, prefix: options.config.keyPrefix, now });
  return {
    ...rest,
    now,
    log,
    metrics,
    webhooks,
    submissions: createSubmissionService({ store: options.store, now, log }, { ...submissions, ...scored }),
    keys,
    oauth: createGrants({ store: options.store, keys, now }),
    clientMetadata: createClientMetadataFetcher({
      allowLoopback: options.config.oauthAllowLoopback,
      lookup: submissions.lookup,
      now,
    }),
    bench: createBenchStore(options.store, keys),
    readers:
      typeof relevance === "function"
        ? deferredReaderService(
            { store: options.store, now, screened: publishedScreenedSource(options.snapshots) },
            relevance,
          )
        : createReaderService({
            store: options.store,
            now,
            screened: publishedScreenedSource(options.snapshots),
            relevance,
          }),
    ipSecret: await storedSecret(options.store, "config:ip-secret"),
    csrfSecret: await storedSecret(options.store, "config:csrf-secret"),
    semantic: options.semantic ?? createSemanticChecker(undefined),
    papers: createPapersAnswers(options.snapshots),
    windowEnds: new LRUCache<string, number>({ max: 10_000, ttlResolution: 0, perf: { now } }),
    mcp: createHostedMcp({
      snapshots: createHostedSnapshots(options.snapshots),
      version: options.version,
      log,
      countToolCall: metrics.countToolCall,
    }),
  };
}

/**
 * Records `submission.scored` with the score (one transaction), and wakes this process's delivery
 * worker once it is, after whatever else the caller does then.
 */
export function withScoredEvent(
  webhooks: WebhookService,
  also: SubmissionServiceOptions["onScored"],
): Pick<SubmissionServiceOptions, "writesWithScore" | "onScored"> {
  const { store, now } = webhooks.deps;
  return {
    writesWithScore: (record) => scoredEventWrites(store, record, now()),
    onScored: async (record) => {
      await also?.(record);
      webhooks.queued();
    },
  };
}
