/** The settings' readers of environment values: one message for each kind of mistake. */

// Node's timers take at most 2^31 - 1 ms (about 24.8 days) and fire after 1 ms beyond: no setting,
// durations included, goes past it.
const MAX_SETTING = 2_147_483_647;

/** A whole number above 0 and at most 2^31 - 1, or `fallback` when unset or blank. */
export function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new Error(`Expected ${name} to be a whole number above 0, got \`${raw}\``);
  if (Number(raw) > MAX_SETTING)
    throw new Error(`Expected ${name} to be at most ${MAX_SETTING} (Node's longest timer), got \`${raw}\``);
  return Number(raw);
}

/** A test-only switch: `1` on, `0` or unset off, anything else a mistake. */
export function testOnlyFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]?.trim() ?? "";
  if (!["", "0", "1"].includes(raw))
    throw new Error(`Expected ${name} to be 0 or 1 (test-only), got \`${raw}\``);
  return raw === "1";
}
