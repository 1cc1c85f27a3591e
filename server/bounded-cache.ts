/**
 * A Map that holds at most `max` entries, forgetting the oldest insertion first. For per-process
 * caches of values that are cheap to compute again (hashes, compiled lists, key records), where a
 * flood of distinct keys must not grow memory: FIFO needs no bookkeeping on a hit.
 */
export interface BoundedCache<K, V> {
  get(key: K): V | undefined;
  /** Stores and returns `value`. */
  set(key: K, value: V): V;
  delete(key: K): void;
}

export function createBoundedCache<K, V>(max: number): BoundedCache<K, V> {
  const map = new Map<K, V>();
  return {
    get: (key) => map.get(key),
    set(key, value) {
      if (!map.has(key) && map.size >= max) map.delete(map.keys().next().value as K);
      map.set(key, value);
      return value;
    },
    delete: (key) => void map.delete(key),
  };
}
