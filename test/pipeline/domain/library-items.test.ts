import { describe, expect, it } from "vitest";
import { readBibEntry, readJsonItem, toCsl } from "../../../pipeline/domain/library-items.ts";
import { mergeLibrary } from "../../../pipeline/domain/reader-profile.ts";

describe("library items", () => {
  it.each([
    ["2401.12345", "arxiv:2401.12345"],
    ["2401.12345v3", "arxiv:2401.12345"],
    ["arXiv:2401.12345", "arxiv:2401.12345"],
    ["https://arxiv.org/pdf/2401.12345v2.pdf", "arxiv:2401.12345"],
    ["cs/0112017", "arxiv:cs/0112017"],
  ])("reads the id form %s", (text, key) => {
    const reading = readJsonItem(text, 0);
    expect(reading.ok && reading.item.key).toBe(key);
  });

  it.each([
    ["not an id", 2, "[2] not an id"],
    [17, 0, "[0]"],
    [null, 1, "[1]"],
    [[1], 3, "[3]"],
  ])("lists %j as unreadable, naming where it was", (value, index, item) => {
    const reading = readJsonItem(value, index);
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.unreadable.item).toBe(item);
  });

  it.each([
    [{ number: "arXiv:2401.12345" }, "arxiv:2401.12345"],
    [{ URL: "http://arxiv.org/abs/2401.12345v1" }, "arxiv:2401.12345"],
    [{ DOI: "10.48550/arXiv.2401.12345" }, "arxiv:2401.12345"],
    [{ note: "arXiv:2401.12345 [cs]" }, "arxiv:2401.12345"],
    [{ DOI: "https://doi.org/10.1145/ABC.1" }, "doi:10.1145/abc.1"],
    [{ title: "  A   Title " }, "title:a title"],
  ])("reads CSL-JSON %j", (csl, key) => {
    const reading = readJsonItem({ id: "x", type: "article", ...csl }, 0);
    expect(reading.ok && reading.item.key).toBe(key);
  });

  it("reads BibTeX fields: eprint only under an arXiv prefix, then URL or DOI, then the title", () => {
    const read = (fields: object) => readBibEntry({ key: "k", authors: [], ...fields });
    expect(read({ eprint: "2401.12345", archiveprefix: "arXiv" })).toMatchObject({
      item: { key: "arxiv:2401.12345" },
    });
    expect(read({ eprint: "hep-th/9901001", archiveprefix: "SSRN", title: "T" })).toMatchObject({
      item: { key: "title:t" },
    });
    expect(read({ url: "https://arxiv.org/abs/2401.12345" })).toMatchObject({
      item: { key: "arxiv:2401.12345" },
    });
    expect(read({})).toEqual({
      ok: false,
      unreadable: { item: "@k", reason: "it names no arXiv id, DOI or title" },
    });
  });

  it("round-trips an item through CSL-JSON", () => {
    for (const value of [
      {
        number: "arXiv:2401.12345",
        title: "Agents",
        abstract: "A.",
        author: [{ family: "Doe", given: "J." }],
      },
      { DOI: "10.1145/x.1", title: "Other" },
      { title: "Only a title" },
    ]) {
      const first = readJsonItem({ id: "z", ...value }, 0);
      if (!first.ok) throw new Error("unreadable");
      expect(readJsonItem(toCsl(first.item), 0)).toEqual(first);
    }
  });

  it("keeps the first reading of a paper and calls the rest duplicates", () => {
    const item = (key: string, title: string) => ({
      key,
      arxiv_id: null,
      doi: null,
      title,
      abstract: null,
      authors: [],
    });
    const merged = mergeLibrary([item("a", "1")], [item("a", "2"), item("b", "3"), item("b", "4")], false);
    expect(merged.library.map((entry) => entry.title)).toEqual(["1", "3"]);
    expect(merged.duplicates.map((entry) => entry.title)).toEqual(["2", "4"]);
    expect(mergeLibrary([item("a", "1")], [item("b", "2")], true).library.map((e) => e.key)).toEqual(["b"]);
  });
});
