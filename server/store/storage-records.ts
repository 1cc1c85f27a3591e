import type { Storage } from "unstorage";
import { assertKey, assertPrefix, assertTtl, isReservedKey, toJson } from "./keys.ts";
import type { Store } from "./types.ts";

/**
 * The plain records of a store through unstorage, the same on every driver: values as JSON text,
 * keys checked, TTLs in whole seconds, the store's own keys ("_...") left out of a listing of all.
 * `assertOpen` throws once the store is closed.
 */
export function storageRecords(
  storage: Storage,
  assertOpen: () => void,
): Pick<Store, "getItem" | "setItem" | "removeItem" | "getKeys"> {
  return {
    async getItem<T>(key: string): Promise<T | null> {
      assertOpen();
      const text = await storage.getItemRaw<string>(assertKey(key));
      return text === null ? null : (JSON.parse(String(text)) as T);
    },
    async setItem(key, value, opts) {
      assertOpen();
      const ttl = assertTtl(opts);
      await storage.setItemRaw(assertKey(key), toJson(key, value), ttl === undefined ? {} : { ttl });
    },
    async removeItem(key) {
      assertOpen();
      await storage.removeItem(assertKey(key));
    },
    async getKeys(prefix) {
      assertOpen();
      const base = assertPrefix(prefix);
      const keys = await storage.getKeys(base);
      return (base ? keys : keys.filter((key) => !isReservedKey(key))).sort();
    },
  };
}
