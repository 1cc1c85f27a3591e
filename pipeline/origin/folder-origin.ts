import { open, readdir, readFile, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "../atomic-write.ts";
import { PublishedKeySchema } from "../domain/manifest.ts";
import { publishedHeaders } from "../domain/published-files.ts";
import { contentHash } from "./content-hash.ts";
import {
  ConditionFailedError,
  type ObjectMeta,
  type OriginDriver,
  type OriginEntry,
  TooLargeError,
} from "./origin.ts";

// A folder is the published tree as a static host serves it: no metadata is stored beside a file. Its
// type and caching follow from its path (published-files.ts), its hash and tag from its bytes.

const MAX_DEPTH = 6;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}

export function createFolderOrigin(options: { dir: string }): OriginDriver {
  const root = resolve(options.dir);
  const pathOf = (key: string): string => {
    if (!PublishedKeySchema.safeParse(key).success) throw new Error(`not a published key: ${key}`);
    return join(root, key);
  };

  const walk = async (dir: string, prefix: string, depth: number, found: OriginEntry[]) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (isMissing(error)) return [];
      throw error;
    });
    // A folder's files are looked at side by side: ten years of days are 3,650 stats, which one
    // after the other took about 150 ms of a server's start, most of it waiting.
    const files: Array<Promise<OriginEntry | undefined>> = [];
    for (const entry of entries) {
      // Dot files and a killed writer's temporary files are never part of the published tree.
      if (entry.name.startsWith(".") || entry.name.endsWith(".tmp")) continue;
      const key = `${prefix}${entry.name}`;
      if (entry.isDirectory() && depth < MAX_DEPTH) {
        await walk(join(dir, entry.name), `${key}/`, depth + 1, found);
      } else if (entry.isFile()) {
        files.push(
          stat(join(dir, entry.name)).then(
            (info) => ({ key, size: info.size, modifiedMs: info.mtimeMs }),
            () => undefined,
          ),
        );
      }
    }
    for (const file of await Promise.all(files)) if (file) found.push(file);
  };

  const read = async (key: string, maxBytes?: number): Promise<Buffer | undefined> => {
    try {
      if (maxBytes !== undefined && (await stat(pathOf(key))).size > maxBytes) {
        throw new TooLargeError(`${key} in ${root} is larger than ${maxBytes} bytes`);
      }
      return await readFile(pathOf(key));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };

  const head = async (key: string): Promise<ObjectMeta | undefined> => {
    const body = await read(key);
    if (!body) return undefined;
    const hash = contentHash(body);
    const headers = publishedHeaders(key);
    return {
      size: body.byteLength,
      etag: `"${hash}"`,
      contentType: headers?.contentType,
      cacheControl: headers?.cacheControl,
      sha256: hash,
    };
  };

  return {
    label: root,
    async list(prefix) {
      const found: OriginEntry[] = [];
      const slash = prefix.lastIndexOf("/");
      const base = prefix.slice(0, slash + 1);
      await walk(base ? join(root, base) : root, base, base.split("/").length - 1, found);
      return found.filter((entry) => entry.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : 1));
    },
    read,
    async readStream(key) {
      try {
        // Opened here, so that a missing file is an answer and not a stream's error later.
        const handle = await open(pathOf(key), "r");
        return handle.createReadStream();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    head,
    async readIfChanged(key, etag, maxBytes) {
      const body = await read(key, maxBytes);
      if (!body) return undefined;
      const tag = `"${contentHash(body)}"`;
      return tag === etag ? "unchanged" : { body, etag: tag };
    },
    async write(key, body, _meta, condition) {
      const path = pathOf(key);
      if (condition) {
        // Checked, then renamed into place: two writers on one machine can still both pass the check
        // between them; the conditional write that matters, between machines, is the bucket's.
        const current = await head(key);
        const holds = "ifMatch" in condition ? current?.etag === condition.ifMatch : current === undefined;
        if (!holds) throw new ConditionFailedError(`${key} changed since it was read`);
      }
      await writeFileAtomic(path, body);
      return { etag: `"${contentHash(body)}"` };
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
    close() {},
  };
}
