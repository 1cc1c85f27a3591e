import { describe, expect, it } from "vitest";
import type { ReaderModel } from "../../../pipeline/domain/reader-model.ts";
import type { LibraryItem } from "../../../pipeline/domain/reader-profile.ts";
import { createKeyService } from "../../../server/access/key-service.ts";
import { createReaderService } from "../../../server/readers/reader-service.ts";
import { publishedScreenedSource } from "../../../server/readers/screened-source.ts";
import { createMemoryStore } from "../../../server/store/memory-store.ts";
import { useRankedSample } from "../../helpers/ranked-sample.ts";

// A refit reads each library item's row from a cache keyed by the item and a digest of its text, so an
// item whose text changed under the same key must not be given its old row. A 32-bit checksum (with the
// text's length) named the rows once: two texts it confuses are found below in well under a second, and
// the item then kept the first text's row.

const sample = useRankedSample();

/** FNV-1a with the length, as the rows were once keyed: what the texts below are made to collide on. */
function checksum(title: string, summary: string): string {
  const all = `${title}\u0000${summary}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < all.length; i++) hash = Math.imul(hash ^ all.charCodeAt(i), 0x01000193) >>> 0;
  return `${all.length}:${hash.toString(36)}`;
}

/** Two summaries of the same length, of words the model reads, that the checksum gives one value. */
function collidingSummaries(words: readonly string[], title: string): [string, string] {
  const seen = new Map<string, string>();
  for (const a of words) {
    for (const b of words) {
      for (const c of words) {
        const summary = `agents that ${a} and ${b} with ${c}`;
        const sum = checksum(title, summary);
        const other = seen.get(sum);
        if (other !== undefined && other !== summary) return [other, summary];
        seen.set(sum, summary);
      }
    }
  }
  throw new Error("no colliding pair among these words");
}

describe("library rows by text", () => {
  it("refits an item whose text changed under the same key with its new text", async () => {
    const title = "Tool use in language agents";
    // Words of one length from the model's vocabulary: every summary then has one length.
    const words = sample.relevance.model.vocabulary.filter((term) => /^[a-z]{7}$/.test(term)).slice(0, 120);
    const [first, second] = collidingSummaries(words, title);
    expect(checksum(title, first)).toBe(checksum(title, second));

    const store = await createMemoryStore();
    const { record } = await createKeyService({ store }).issue({
      tier: "pro",
      email: "reader@example.org",
      label: "reader",
    });
    const service = () =>
      createReaderService({
        store,
        now: Date.now,
        screened: publishedScreenedSource(sample.snapshots),
        relevance: sample.relevance,
      });
    const item = (abstract: string): LibraryItem => ({
      key: "doi:10.1000/rows",
      arxiv_id: null,
      doi: "10.1000/rows",
      title,
      abstract,
      authors: [],
    });
    const model = async () => {
      const stored = (await store.getItem<ReaderModel>(`reader:${record.id}:model`)) as ReaderModel;
      return { ...stored, profile_version: 0 };
    };
    const readers = service();
    await readers.writeLibrary(record, [item(first)], [], true);
    const ofFirst = await model();
    await readers.writeLibrary(record, [item(second)], [], true);
    const refitted = await model();
    // The same library fitted by a process that never saw the first text.
    await service().writeLibrary(record, [item(second)], [], true);
    const fresh = await model();
    expect(fresh).not.toEqual(ofFirst);
    expect(refitted).toEqual(fresh);
  });
});
