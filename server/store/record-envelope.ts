/** A record of the memory and file stores: the value as JSON text, and when it expires (epoch ms). */
export interface LocalEntry {
  json: string;
  expiresAt: number | null;
}

/** The persisted form: `{"value":...,"expiresAt":...}`, so that TTLs survive a restart. */
export function encodeEnvelope(entry: LocalEntry): string {
  return `{"value":${entry.json},"expiresAt":${entry.expiresAt ?? "null"}}`;
}

export function decodeEnvelope(key: string, text: string): LocalEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`Expected the record of ${JSON.stringify(key)} to be JSON, got ${text.slice(0, 80)}`);
  }
  if (typeof parsed !== "object" || parsed === null || !("value" in parsed) || !("expiresAt" in parsed)) {
    throw new Error(`Expected the record of ${JSON.stringify(key)} to be {"value","expiresAt"}`);
  }
  const { value, expiresAt } = parsed;
  if (expiresAt !== null && !Number.isSafeInteger(expiresAt)) {
    throw new Error(`Expected the expiresAt of ${JSON.stringify(key)} to be epoch ms or null`);
  }
  return { json: JSON.stringify(value), expiresAt: expiresAt as number | null };
}
