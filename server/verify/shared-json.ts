// Values that every request of a kind shares (a check's result with nothing found, a skipped review),
// frozen so that no request can change them for the others, with their JSON written once: the answer's
// encoding (result-json.ts) reuses it instead of encoding them again for every request.

const JSON_TEXT = Symbol("json");

type Plain = string | number | boolean | null | readonly Plain[] | { readonly [key: string]: Plain };

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  for (const child of Object.values(value)) deepFreeze(child);
  Object.freeze(value);
}

/** Freezes `value` all the way down and keeps its JSON, in a property JSON.stringify does not see. */
export function shareWithJson<T extends Plain>(value: T): T {
  // A symbol key, not enumerable: JSON.stringify, Object.keys and equality tests pass it by.
  Object.defineProperty(value, JSON_TEXT, { value: JSON.stringify(value) });
  deepFreeze(value);
  return value;
}

/** The JSON of a value made by shareWithJson, else undefined. */
export function sharedJson(value: object): string | undefined {
  return (value as { [JSON_TEXT]?: string })[JSON_TEXT];
}
