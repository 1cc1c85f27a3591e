import type { AppContext } from "../context.ts";
import { SUBMISSION_QUEUE } from "../submissions/submission-records.ts";
import { WEBHOOK_QUEUE } from "../webhooks/webhook-records.ts";
import type { StateSources } from "./service-metrics.ts";

/** What the collect-time gauges read of this server. */
export function stateSources(context: AppContext): StateSources {
  let keys: { at: number; counts: Promise<Partial<Record<string, number>>> } | undefined;
  return {
    // Counting keys reads every key record: at most once a minute, whatever the scrape interval.
    activeKeys() {
      const at = context.now();
      if (!keys || at - keys.at > 60_000) {
        const counts = context.keys.list().then((records) => {
          const byTier: Record<string, number> = {};
          for (const record of records) {
            if (record.revoked_at === null) byTier[record.tier] = (byTier[record.tier] ?? 0) + 1;
          }
          return byTier;
        });
        counts.catch(() => {
          keys = undefined;
        });
        keys = { at, counts };
      }
      return keys.counts;
    },
    queueDepth: (queue: "webhooks" | "submissions") =>
      context.store.queue(queue === "webhooks" ? WEBHOOK_QUEUE : SUBMISSION_QUEUE).size(),
    circuits: () => context.semantic.circuits?.() ?? {},
    latestDate: () => context.snapshots.latestDate(),
    daysHeld: () => context.snapshots.days().length,
    now: context.now,
  };
}
