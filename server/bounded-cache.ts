/**
 * A Map that holds at most `max` entries (or, with `weigh`, at most `max` units of weight, such as
 * bytes), forgetting the oldest insertion first. For per-process caches of values that are cheap to
 * compute again (hashes, compiled lists, key records, prepared answers), where a flood of distinct
 * keys must not grow memory: FIFO needs no bookkeeping on a hit.
 */
export interface BoundedCache<K, V> {
  get(key: K): V | undefined;
  /** Stores and returns `value`; a value heavier than the whole budget is returned, not stored. */
  set(key: K, value: V): V;
  delete(key: K): void;
}

export function createBoundedCache<K, V>(
  max: number,
  weigh: (value: V) => number = () => 1,
): BoundedCache<K, V> {
  // Each entry keeps the weight it was stored with: a value that grows later (a prepared answer that
  // gains a compressed form) is weighed again only when it is set again.
  const map = new Map<K, { value: V; weight: number }>();
  let weight = 0;
  const remove = (key: K): void => {
    const entry = map.get(key);
    if (entry === undefined) return;
    weight -= entry.weight;
    map.delete(key);
  };
  return {
    get: (key) => map.get(key)?.value,
    set(key, value) {
      remove(key);
      const heavy = weigh(value);
      if (heavy > max) return value;
      while (map.size > 0 && weight + heavy > max) remove(map.keys().next().value as K);
      map.set(key, { value, weight: heavy });
      weight += heavy;
      return value;
    },
    delete: remove,
  };
}
