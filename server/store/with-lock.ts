/** Runs `fn` once every earlier call for the same key has settled. */
export type KeyedLock = <T>(key: string, fn: () => T | Promise<T>) => Promise<T>;

/**
 * An in-process lock per key: a Map of promise chains, so unrelated keys never wait for each other.
 * A chain is dropped from the map when it runs dry, so the map holds only keys in use.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  return <T>(key: string, fn: () => T | Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = run.then(noop, noop);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) {
        tails.delete(key);
      }
    });
    return run;
  };
}

/**
 * The process-wide lock, for read-modify-write sequences over a Store within one process (on Redis
 * it does not exclude other processes).
 * @example await withLock(`submission:${id}`, async () => { const s = await store.getItem(k); ... })
 */
export const withLock: KeyedLock = createKeyedLock();

function noop(): void {}
