import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFileSource, parseListing } from "../../../pipeline/sources/file-source.ts";
import { SourceError } from "../../../pipeline/sources/source.ts";
import { LISTING_250, LISTING_PARTIAL } from "../../helpers/fixtures.ts";

describe("file source", () => {
  it("reads the real 314-row day as 250 unique candidates", async () => {
    const batch = await createFileSource(LISTING_250).load("2026-06-12");
    expect(batch.candidates).toHaveLength(250);
    expect(batch.duplicates).toBe(64);
    expect(batch.skipped).toEqual([]);
    expect(new Set(batch.candidates.map((c) => c.id)).size).toBe(250);
    expect(batch.sample).toBe(false);
    expect(batch.source).toBe("file:listing-2026-06-12-314-rows-250-unique.jsonl");
  });

  it("reads the real partial day without inventing anything", async () => {
    const batch = await createFileSource(LISTING_PARTIAL).load("2026-06-25");
    expect(batch.candidates.length).toBeGreaterThan(0);
    expect(batch.candidates.length + batch.duplicates + batch.skipped.length).toBe(26);
  });

  it("names the file and line of broken JSON", async () => {
    const dir = await mkdtemp(join(tmpdir(), "picks-src-"));
    const path = join(dir, "broken.jsonl");
    await writeFile(path, '{"id":"2401.00001","title":"ok"}\n{"id": "2401.00002", "title": \n');
    await expect(createFileSource(path).load("2026-01-01")).rejects.toThrow(`${path}:2: not valid JSON`);
    await expect(createFileSource(path).load("2026-01-01")).rejects.toBeInstanceOf(SourceError);
  });

  it("says when the file is missing", async () => {
    await expect(createFileSource("/nonexistent/listing.jsonl").load("2026-01-01")).rejects.toThrow(
      "cannot read /nonexistent/listing.jsonl: no such file",
    );
  });

  it.each([
    ["a JSON array", '[{"id":"2401.00001","title":"a"}]', 1],
    ["a candidates document", '{\n  "candidates": [{"id":"2401.00001","title":"a"}]\n}', 1],
    ["an object keyed by id", '{"2401.00001": {"title": "a", "abstract": "b"}}', 1],
    ["one JSON line", '{"id":"2401.00001","title":"a"}', 1],
    ["two JSON lines", '{"id":"2401.00001","title":"a"}\n{"id":"2401.00002","title":"b"}\n', 2],
    ["an empty file", "", 0],
  ])("parses %s", (_name, text, rows) => {
    expect(parseListing(text, "x.json")).toHaveLength(rows);
  });
});
