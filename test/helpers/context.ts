import type { CompiledRelevance } from "../../pipeline/domain/relevance-model.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../../server/config.ts";
import { type AppContext, createContext } from "../../server/context.ts";
import type { SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../server/store/memory-store.ts";
import type { Store } from "../../server/store/types.ts";
import type { WebhookServiceOptions } from "../../server/webhooks/webhook-service.ts";
import { publishedRules } from "./rubric.ts";

/**
 * An app context over a memory store (or the one given), with a clock the test can move. The memory
 * store runs on that clock too: a counter's expiry and the context's windows must agree, or a fixed
 * test date in the past makes every counter expire at once.
 */
export async function testContext(
  snapshots: SnapshotCache,
  options: {
    store?: Store;
    config?: Partial<ServerConfig>;
    now?: () => number;
    relevance?: CompiledRelevance | null | (() => Promise<CompiledRelevance | null>);
    webhooks?: WebhookServiceOptions;
  } = {},
): Promise<AppContext> {
  return createContext({
    version: "0.1.0",
    snapshots,
    store: options.store ?? (await createMemoryStore({ clock: options.now })),
    config: { ...DEFAULT_CONFIG, ...options.config },
    now: options.now,
    log: () => {},
    submissions: { score: publishedRules },
    relevance: options.relevance ?? null,
    webhooks: options.webhooks,
  });
}
