import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";

/** A memory store that can be taken down: while down, every call fails as an unreachable Redis would. */
export async function createSwitchableStore(): Promise<{ store: Store; setDown(down: boolean): void }> {
  const inner = await createMemoryStore();
  let down = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        down ? Promise.reject(new Error("connect ECONNREFUSED (store down)")) : value.apply(target, args);
    },
  });
  return { store, setDown: (value) => (down = value) };
}
