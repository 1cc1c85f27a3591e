import { readFile, stat } from "node:fs/promises";

/** The bytes of a regular file, or undefined when there is none to read at `path`. */
export async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return (await stat(path)).isFile() ? await readFile(path) : undefined;
  } catch {
    return undefined;
  }
}
