import { open } from "node:fs/promises";

/** fsyncs a folder: a file created, renamed or removed in it survives a power loss only after this. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
