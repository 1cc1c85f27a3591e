/**
 * `{ ...base, ...changes }`, written out: the same own enumerable string keys in the same order
 * (a key of `changes` already in `base` keeps its place), with `changes` winning. Node 20's V8 makes
 * the copy of an object literal that starts with a spread in its old generation, so one made for
 * every request piles up there and keeps young objects alive until the next mark-compact
 * (docs/performance.md, "The fifth round"); this copy is young on every Node line.
 */
export function copyWith<T extends object, U extends object>(base: T, changes: U): Omit<T, keyof U> & U {
  const copy: Record<string, unknown> = {};
  put(copy, base as Record<string, unknown>);
  put(copy, changes as Record<string, unknown>);
  return copy as Omit<T, keyof U> & U;
}

function put(copy: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const key of Object.keys(from)) {
    // Assigning "__proto__" would set the prototype; a spread defines an own property of that name.
    if (key === "__proto__")
      Object.defineProperty(copy, key, {
        value: from[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = from[key];
  }
}
