import { z } from "zod";

export const TIER_NAMES = ["free", "pro", "team", "enterprise", "bench"] as const;
export const TierNameSchema = z.enum(TIER_NAMES);
export type TierName = z.infer<typeof TierNameSchema>;

/** What a tier may do. `null` means unlimited. Quota windows are 30 days, starting at the key's creation. */
export const TierLimitsSchema = z.object({
  calls_per_window: z.int().nullable(),
  window_days: z.int(),
  history_days: z.int().nullable(),
  max_limit: z.int(),
});
export type TierLimits = z.infer<typeof TierLimitsSchema>;

export const TIERS: Record<TierName, TierLimits> = {
  free: { calls_per_window: 100, window_days: 30, history_days: 7, max_limit: 25 },
  pro: { calls_per_window: 5_000, window_days: 30, history_days: 90, max_limit: 100 },
  team: { calls_per_window: 50_000, window_days: 30, history_days: 365, max_limit: 500 },
  enterprise: { calls_per_window: null, window_days: 30, history_days: null, max_limit: 5_000 },
  // Bench-as-a-Service: a firm's keys read the public picks as enterprise does, plus /v1/bench/*.
  bench: { calls_per_window: null, window_days: 30, history_days: null, max_limit: 5_000 },
};

/** Tiers whose keys are bound to a firm (and only those). */
export const FIRM_TIERS: readonly TierName[] = ["bench"];

const DAY_MS = 86_400_000;

/** The quota window containing `now` for a key created at `createdAt` (epoch ms): its index and bounds. */
export function quotaWindow(createdAt: number, now: number, windowDays: number) {
  const length = windowDays * DAY_MS;
  const index = Math.max(0, Math.floor((now - createdAt) / length));
  const start = createdAt + index * length;
  return { index, start, end: start + length };
}
