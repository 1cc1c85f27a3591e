import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  MANIFEST_KEY,
  OBJECT_HEADERS,
  objectKey,
  publishedHeaders,
} from "../../../pipeline/domain/published-files.ts";
import { createFolderOrigin } from "../../../pipeline/origin/folder-origin.ts";
import {
  ConditionFailedError,
  type OriginDriver,
  TooLargeError,
  type WriteMeta,
} from "../../../pipeline/origin/origin.ts";
import { createS3Origin } from "../../../pipeline/origin/s3-origin.ts";
import { type MotoServer, motoSkipReason, newBucket, s3Settings, startMoto } from "../../helpers/moto.ts";

// One contract, every driver: what publishing and the servers rely on holds for a folder and for an
// S3-compatible bucket alike (STYLE.md point 18).

interface Opened {
  origin: OriginDriver;
  /** A second origin on the same store beside the first (a sibling folder, a sibling prefix). */
  neighbour: OriginDriver;
  /** The credential the origin was opened with, if any: never to be shown. */
  secret?: string;
  cleanup(): Promise<void>;
}

interface Driver {
  name: string;
  skip: string | null;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  open(): Promise<Opened>;
}

let moto: MotoServer | undefined;
const motoSkip = motoSkipReason();
if (motoSkip) console.warn(motoSkip);

const DRIVERS: Driver[] = [
  {
    name: "folder",
    skip: null,
    async open() {
      const root = await mkdtemp(join(tmpdir(), "picks-origin-"));
      const origin = createFolderOrigin({ dir: join(root, "site") });
      const neighbour = createFolderOrigin({ dir: join(root, "site-old") });
      return { origin, neighbour, cleanup: () => rm(root, { recursive: true, force: true }) };
    },
  },
  {
    name: "bucket (moto, prefix site/prod, pages of 2)",
    skip: motoSkip,
    async setup() {
      moto = await startMoto();
    },
    async teardown() {
      await moto?.stop();
    },
    async open() {
      const endpoint = (moto as MotoServer).endpoint;
      const bucket = await newBucket(endpoint, "contract");
      const secret = "contract-secret-7d3f9a";
      const settings = { ...s3Settings(endpoint), secretAccessKey: secret };
      const origin = createS3Origin({ bucket, prefix: "site/prod", settings, pageSize: 2, maxAttempts: 2 });
      const neighbour = createS3Origin({ bucket, prefix: "site/prod-old", settings, maxAttempts: 2 });
      return {
        origin,
        neighbour,
        secret,
        async cleanup() {
          origin.close();
          neighbour.close();
        },
      };
    },
  },
];

const sha256 = (body: Buffer): string => createHash("sha256").update(body).digest("hex");

/** What the publisher stores with `key`: its served headers and the hash of `body`. */
function metaFor(key: string, body: Buffer): WriteMeta {
  const headers = publishedHeaders(key);
  if (!headers) throw new Error(`${key} is not a published key`);
  return { ...headers, sha256: sha256(body) };
}

async function put(origin: OriginDriver, key: string, text: string): Promise<Buffer> {
  const body = Buffer.from(text);
  await origin.write(key, body, metaFor(key, body));
  return body;
}

// Seven keys: more than three pages of two, days interleaved with files around them in key order.
const KEYS = [
  "v1/daily/2026-11-20.json",
  "assets/app.js",
  "v1/recent.json",
  "v1/daily/2026-11-18.json",
  "index.html",
  "v1/daily/2026-11-19.json",
  "feed.xml",
];

describe.each(DRIVERS)("snapshot origin contract: $name", (driver) => {
  describe.skipIf(driver.skip !== null)(driver.skip ?? "runs", () => {
    let opened: Opened;
    let origin: OriginDriver;

    beforeAll(async () => driver.setup?.());
    afterAll(async () => driver.teardown?.());
    beforeEach(async () => {
      opened = await driver.open();
      origin = opened.origin;
    });
    afterEach(async () => opened.cleanup());

    it("describes itself without a secret", () => {
      expect(origin.label.length).toBeGreaterThan(0);
      if (opened.secret) expect(origin.label).not.toContain(opened.secret);
    });

    it("reads back the exact bytes written, and an overwrite replaces them", async () => {
      const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x7b]);
      await origin.write("v1/recent.json", bytes, metaFor("v1/recent.json", bytes));
      expect(await origin.read("v1/recent.json")).toEqual(bytes);
      const text = await put(origin, "v1/recent.json", '{"days":["2026-11-20"],"é":"ü 字"}');
      expect(await origin.read("v1/recent.json")).toEqual(text);
    });

    it("streams the bytes of a key, and answers undefined for a missing one", async () => {
      const lines = `${Array.from({ length: 2000 }, (_, n) => `{"n":${n}}`).join("\n")}\n`;
      await put(origin, "v1/picks-index.jsonl", lines);
      const stream = await origin.readStream("v1/picks-index.jsonl");
      const chunks: Buffer[] = [];
      for await (const chunk of stream ?? []) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(Buffer.concat(chunks).toString("utf8")).toBe(lines);
      expect(await origin.readStream("v1/daily/2026-01-01.json")).toBeUndefined();
    });

    it("reads no further than maxBytes: a larger object is a TooLargeError", async () => {
      const body = Buffer.from("x".repeat(4096));
      const key = objectKey(sha256(body));
      await origin.write(key, body, { ...OBJECT_HEADERS, sha256: sha256(body) });
      expect(await origin.read(key, body.byteLength)).toEqual(body);
      await expect(origin.read(key, 100)).rejects.toThrow(TooLargeError);
      expect(await origin.read("v1/objects/missing", 100)).toBeUndefined();
    });

    it("answers undefined for a missing key, read or head", async () => {
      expect(await origin.read("v1/daily/2026-01-01.json")).toBeUndefined();
      expect(await origin.head("v1/daily/2026-01-01.json")).toBeUndefined();
      await put(origin, "v1/daily/2026-01-02.json", "{}");
      expect(await origin.read("v1/daily/2026-01-01.json")).toBeUndefined();
      expect(await origin.head("v1/daily/2026-01-01.json")).toBeUndefined();
    });

    it("lists every key under a prefix in key order, with sizes, across pages", async () => {
      const sizes = new Map<string, number>();
      for (const [index, key] of KEYS.entries()) {
        const body = await put(origin, key, `{"n":${index},"pad":"${"x".repeat(index * 3)}"}`);
        sizes.set(key, body.byteLength);
      }
      // A sibling whose name starts like this origin's: none of its keys may show.
      await put(opened.neighbour, "v1/daily/2026-11-17.json", "{}");
      await put(opened.neighbour, "index.html", "<!doctype html>");

      const sorted = [...KEYS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const all = await origin.list("");
      expect(all.map((entry) => entry.key)).toEqual(sorted);
      for (const entry of all) expect(entry.size, entry.key).toBe(sizes.get(entry.key));

      const days = await origin.list("v1/daily/");
      expect(days.map((entry) => entry.key)).toEqual([
        "v1/daily/2026-11-18.json",
        "v1/daily/2026-11-19.json",
        "v1/daily/2026-11-20.json",
      ]);
      for (const entry of days) expect(entry.size, entry.key).toBe(sizes.get(entry.key));
      expect(await origin.list("nothing/here/")).toEqual([]);
    });

    it("keeps content type, caching, hash and size with the object", async () => {
      for (const key of ["v1/daily/2026-11-20.json", "feed.xml", "index.html", "assets/app.js"]) {
        const body = Buffer.from(`content of ${key}\n`);
        const meta = metaFor(key, body);
        await origin.write(key, body, meta);
        const head = await origin.head(key);
        expect(head, key).toMatchObject({
          size: body.byteLength,
          contentType: meta.contentType,
          cacheControl: meta.cacheControl,
          sha256: meta.sha256,
        });
        expect(head?.etag, key).toMatch(/\S/);
      }
    });

    it("writes with ifNoneMatch * only where nothing is stored", async () => {
      const key = "v1/daily/latest.json";
      const first = Buffer.from('{"date":"2026-11-19"}');
      await origin.write(key, first, metaFor(key, first), { ifNoneMatch: "*" });
      expect(await origin.read(key)).toEqual(first);

      const second = Buffer.from('{"date":"2026-11-20"}');
      await expect(origin.write(key, second, metaFor(key, second), { ifNoneMatch: "*" })).rejects.toThrow(
        ConditionFailedError,
      );
      expect(await origin.read(key)).toEqual(first);
    });

    it("writes with ifMatch only while the stored object is still the one seen", async () => {
      const key = "v1/manifest.json";
      const first = Buffer.from('{"version":1,"n":1}');
      const written = await origin.write(key, first, metaFor(key, first));
      const seen = await origin.head(key);
      expect(seen?.etag).toBe(written.etag);

      const second = Buffer.from('{"version":1,"n":2}');
      const rewritten = await origin.write(key, second, metaFor(key, second), {
        ifMatch: seen?.etag as string,
      });
      expect(await origin.read(key)).toEqual(second);
      expect(rewritten.etag).not.toBe(written.etag);

      // The first tag is stale now: a writer that saw the first version must not overwrite the second.
      const third = Buffer.from('{"version":1,"n":3}');
      await expect(origin.write(key, third, metaFor(key, third), { ifMatch: written.etag })).rejects.toThrow(
        ConditionFailedError,
      );
      expect(await origin.read(key)).toEqual(second);
      expect((await origin.head(key))?.sha256).toBe(sha256(second));
    });

    it("refuses ifMatch on a missing key without creating it", async () => {
      const key = "v1/stats.json";
      const body = Buffer.from("{}");
      await expect(
        origin.write(key, body, metaFor(key, body), { ifMatch: `"${"0".repeat(32)}"` }),
      ).rejects.toThrow(ConditionFailedError);
      expect(await origin.head(key)).toBeUndefined();
    });

    it("reads again only when the tag changed", async () => {
      const key = MANIFEST_KEY;
      expect(await origin.readIfChanged(key, undefined)).toBeUndefined();
      expect(await origin.readIfChanged(key, '"stale"')).toBeUndefined();

      const first = await put(origin, key, '{"version":1,"n":1}');
      const read = await origin.readIfChanged(key, undefined);
      expect(read).toEqual({ body: first, etag: (await origin.head(key))?.etag });
      const tag = (read as { etag: string }).etag;
      expect(await origin.readIfChanged(key, tag)).toBe("unchanged");
      expect(await origin.readIfChanged(key, '"some-other-tag"')).toEqual({ body: first, etag: tag });

      const second = await put(origin, key, '{"version":1,"n":2}');
      const reread = await origin.readIfChanged(key, tag);
      expect(reread).toEqual({ body: second, etag: (await origin.head(key))?.etag });
      expect((reread as { etag: string }).etag).not.toBe(tag);

      await origin.remove(key);
      expect(await origin.readIfChanged(key, tag)).toBeUndefined();
    });

    it("removes a key, and removing a missing key is not an error", async () => {
      await put(origin, "v1/recent.json", "{}");
      await put(origin, "v1/stats.json", "{}");
      await origin.remove("v1/recent.json");
      expect(await origin.read("v1/recent.json")).toBeUndefined();
      expect(await origin.head("v1/recent.json")).toBeUndefined();
      expect((await origin.list("")).map((entry) => entry.key)).toEqual(["v1/stats.json"]);
      await origin.remove("v1/recent.json");
    });
  });
});
