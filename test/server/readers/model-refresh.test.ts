import { describe, expect, it } from "vitest";
import type { ReaderModel } from "../../../pipeline/domain/reader-model.ts";
import { createKeyService, type KeyRecord } from "../../../server/access/key-service.ts";
import { lookupsKey } from "../../../server/readers/pending-reasons.ts";
import { createReaderService, type ReaderService } from "../../../server/readers/reader-service.ts";
import { eraseReader, readerLockKey } from "../../../server/readers/reader-store.ts";
import { publishedScreenedSource } from "../../../server/readers/screened-source.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import type { Store } from "../../../server/store/types.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";

// A model stored for an older relevance model is refitted at the key's next list, under the profile's
// lock. That refit writes the profile's records again: it must not bring back a key revoked or erased
// meanwhile, and a list ranked without it (the lock not had) must not be kept.

const sample = useRankedSample();

/** The store as the reader service sees it, with `before` run ahead of each setItem of a key. */
function watched(store: Store, before: (key: string) => Promise<void>): Store {
  return new Proxy(store, {
    get(target, name) {
      if (name === "setItem") {
        return async (key: string, value: unknown, ...rest: unknown[]) => {
          await before(key);
          return (target.setItem as (...args: unknown[]) => Promise<void>)(key, value, ...rest);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function setup(wrap: (store: Store, record: KeyRecord) => Store = (store) => store) {
  const store = await createMemoryStore();
  const keys = createKeyService({ store });
  const { record } = await keys.issue({ tier: "pro", email: "reader@example.org", label: "reader" });
  const service = (on: Store) =>
    createReaderService({
      store: on,
      now: Date.now,
      screened: publishedScreenedSource(sample.snapshots),
      relevance: sample.relevance,
    });
  const date = sample.snapshots.days()[0]?.date as string;
  const plain = service(store);
  const papers = (await plain.rankDay(record.id, date, 0))?.papers ?? [];
  for (const paper of papers.slice(3, 6)) {
    expect(await plain.rate(record, paper.arxiv_id, 1)).toMatchObject({ version: expect.any(Number) });
  }
  // As stored under the relevance model before this one: refitted at the next list.
  const model = (await store.getItem<ReaderModel>(`reader:${record.id}:model`)) as ReaderModel;
  expect(model.positives).toBe(3);
  await store.setItem(`reader:${record.id}:model`, { ...model, relevance_version: "an-older-model" });
  const readers: ReaderService = service(wrap(store, record));
  return { store, keys, record, date, readers };
}

describe("refitting an outdated model at a list", () => {
  it("refits and stores the model, and ranks with it", async () => {
    const { store, record, date, readers } = await setup();
    expect((await readers.rankDay(record.id, date, 0))?.personal).toBe(true);
    expect(await store.getItem(`reader:${record.id}:model`)).toMatchObject({
      relevance_version: sample.relevance.model.version,
      positives: 3,
    });
  });

  it("leaves nothing of a key revoked while the refit ran", async () => {
    let revoke = async (_key: string) => {};
    const { store, record, date, readers } = await setup((inner) => watched(inner, (name) => revoke(name)));
    const keys = createKeyService({ store });
    // The revocation (which erases without the profile's lock) lands as the refit starts writing.
    revoke = async (name) => {
      if (name !== `reader:${record.id}:profile`) return;
      revoke = async () => {};
      await keys.revoke(record.id);
    };
    await readers.rankDay(record.id, date, 0);
    expect(await store.getKeys(`reader:${record.id}`)).toEqual([]);
  });

  it("writes nothing back for a profile erased between its version and its refit", async () => {
    const { store, record, date, readers } = await setup((inner, key) => {
      let erased = false;
      return new Proxy(inner, {
        get(target, name) {
          if (name === "getItem") {
            return async (item: string) => {
              const value = await target.getItem(item);
              // Erased once its model was read for the list, before the refit takes the lock.
              if (item === `reader:${key.id}:model` && !erased) {
                erased = true;
                await eraseReader(target, key.id);
              }
              return value;
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    });
    await readers.rankDay(record.id, date, 0);
    expect(await store.getKeys(`reader:${record.id}`)).toEqual([]);
  });

  it("serves the global order while the profile's lock is held, and keeps neither model nor answer", async () => {
    const { store, record, date, readers } = await setup();
    await store.setIfAbsent(readerLockKey(record.id), "held elsewhere", { ttlSeconds: 30 });
    const busy = JSON.parse((await readers.picksJson(record, date, 25, false)) as string);
    expect(busy.personal).toBe(false);
    await store.removeItem(readerLockKey(record.id));
    const mine = JSON.parse((await readers.picksJson(record, date, 25, false)) as string);
    expect(mine.personal).toBe(true);
    expect(mine.profile_version).toBe(busy.profile_version);
    expect((await readers.rankDay(record.id, date, 0))?.personal).toBe(true);
  }, 20_000);

  it("compiles a model fitted on another version of the profile without keeping it under this one", async () => {
    let reads = 0;
    const { store, record, date, readers } = await setup(
      (inner, key) =>
        new Proxy(inner, {
          get(target, name) {
            if (name === "getItem") {
              return async (item: string) => {
                if (item === `reader:${key.id}:model`) reads++;
                return target.getItem(item);
              };
            }
            const value = Reflect.get(target, name);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }),
    );
    const model = (await store.getItem<ReaderModel>(`reader:${record.id}:model`)) as ReaderModel;
    const version = (await readers.profile(record.id)).version;
    // Current, but fitted on the version before: a write between the version's read and the model's.
    await store.setItem(`reader:${record.id}:model`, {
      ...model,
      relevance_version: sample.relevance.model.version,
      profile_version: version - 1,
    });
    await readers.rankDay(record.id, date, 0);
    await readers.rankDay(record.id, date, 0);
    expect(reads).toBe(2);
    // The version's own model is kept: read once more, then no more.
    await store.setItem(`reader:${record.id}:model`, {
      ...model,
      relevance_version: sample.relevance.model.version,
    });
    await readers.rankDay(record.id, date, 0);
    await readers.rankDay(record.id, date, 0);
    expect(reads).toBe(3);
  });
});

describe("completing a library's pending items", () => {
  it("leaves nothing of a key revoked while the completion ran", async () => {
    let revoke = async (_key: string) => {};
    const { store, record, readers } = await setup((inner) => watched(inner, (name) => revoke(name)));
    const keys = createKeyService({ store });
    revoke = async (name) => {
      if (name !== lookupsKey(record.id)) return;
      revoke = async () => {};
      await keys.revoke(record.id);
    };
    const reasons = { "2001.00001": { at: new Date().toISOString(), reason: "not found on arXiv" } };
    expect(await readers.completeLibrary(record.id, new Map(), reasons)).toBe(0);
    expect(await store.getKeys(`reader:${record.id}`)).toEqual([]);
  });
});
