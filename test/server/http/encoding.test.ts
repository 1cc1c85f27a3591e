import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preferredCoding } from "../../../server/http/encoding.ts";
import { type PreparedResponse, representationFor } from "../../../server/http/prepared.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { MODES, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { publishSampleDays } from "../../helpers/published.ts";

describe("preferredCoding", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["identity", undefined],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0, gzip;q=0.1", "gzip"],
    ["br;q=0, gzip;q=0", undefined],
    ["*", "br"],
    ["*;q=0.2, br;q=0", "gzip"],
    ["x-gzip", "gzip"],
    ["GZIP;Q=1", "gzip"],
    ["br;q=bogus", "br"],
  ])("%j -> %j", (header, expected) => {
    expect(preferredCoding(header)).toBe(expected);
  });
});

let snapshots: SnapshotCache;
/** The compressed bytes themselves, as the server holds them. */
const direct = (path: string, coding: string): Buffer =>
  representationFor(snapshots.lookup(path) as PreparedResponse, coding).body;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: (await publishSampleDays()).publicDir });
});
afterAll(() => snapshots.close());

describe.each(MODES)("compressed snapshot answers (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  const raw = async (path: string, headers: Record<string, string>) => {
    const answer = await call(path, { headers });
    return { answer, bytes: Buffer.from(await answer.arrayBuffer()) };
  };

  it.each([
    ["br", brotliDecompressSync],
    ["gzip", gunzipSync],
  ] as const)("sends %s to a client that takes it: the same bytes, smaller, with their own ETag", async (coding, decode) => {
    for (const path of ["/v1/daily/latest", "/v1/axes", "/feed.xml", "/feed.json", "/v1/search-index.json"]) {
      const plain = await raw(path, { "accept-encoding": "identity" });
      expect(plain.answer.headers.get("content-encoding")).toBeNull();
      expect(plain.answer.headers.get("vary"), path).toBe("accept-encoding");
      const packed = await raw(path, { "accept-encoding": `${coding}, deflate` });
      expect(packed.answer.headers.get("content-encoding"), path).toBe(coding);
      expect(packed.answer.headers.get("vary")).toBe("accept-encoding");
      // Both clients decode the body, as fetch does; the length sent is the compressed one.
      expect(packed.bytes.equals(plain.bytes), path).toBe(true);
      const sent = Number(packed.answer.headers.get("content-length"));
      expect(sent).toBeLessThan(plain.bytes.byteLength);
      expect(decode(direct(path, coding)).equals(plain.bytes), path).toBe(true);
      const etag = packed.answer.headers.get("etag") as string;
      expect(etag).toBe((plain.answer.headers.get("etag") as string).replace(/"$/, `-${coding}"`));
      const again = await call(path, { headers: { "accept-encoding": coding, "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      // The identity tag does not stand for the compressed bytes.
      const other = await call(path, {
        headers: { "accept-encoding": coding, "if-none-match": plain.answer.headers.get("etag") as string },
      });
      expect(other.status).toBe(200);
    }
  });

  it("leaves small answers and refused codings alone", async () => {
    const refused = await raw("/v1/daily/latest", { "accept-encoding": "br;q=0, gzip;q=0" });
    expect(refused.answer.headers.get("content-encoding")).toBeNull();
    const health = await call("/health", { headers: { "accept-encoding": "br" } });
    expect(health.headers.get("content-encoding")).toBeNull();
  });
});
