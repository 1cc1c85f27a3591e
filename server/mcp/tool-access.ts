/**
 * What a caller's key allows the tools to read: the history and page size of its tier, as for
 * GET /v1/papers. `picks mcp` reads local files for their owner, with no limits.
 */
export interface ToolAccess {
  /** The tier's name, for the notes that say why a value was lowered. */
  tier: string | null;
  /** Calendar days back from the latest published day; `null` for all. */
  historyDays: number | null;
  /** The largest page the tier allows. */
  maxLimit: number;
}

export const OWNER_ACCESS: ToolAccess = { tier: null, historyDays: null, maxLimit: Number.POSITIVE_INFINITY };
