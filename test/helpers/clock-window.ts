import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits, when less than `marginMs` is left of the current fixed window of `windowSeconds` on the real
 * clock, until the next window has begun. Windows are aligned as `limitByKey` aligns them (a minute's
 * ends on the minute, an hour's on the hour, a day's at 00:00 UTC).
 *
 * A server in another process cannot be handed the test's clock. A test that spends such a rate and
 * then expects its 429 (or that reads a date off the clock in two processes) calls this first, with a
 * margin longer than the steps that must share one window: no window then ends between them.
 */
export async function clearOfWindowEnd(windowSeconds: number, marginMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  if (marginMs >= windowMs / 2) throw new RangeError("the margin must be under half the window");
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await sleep(left + 50);
}
