import { readFileSync } from "node:fs";
import { open, readFile, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LOCK_NAME } from "./file-names.ts";

const heldHere = new Set<string>();

/**
 * Claims `dir` for this process with a lock file holding the pid: the file store keeps its state in
 * memory and writes through, so a second writer would silently lose updates. A lock whose pid is
 * dead is taken over. This guards against mistakes (two servers on one folder); it is not a
 * consensus protocol: two processes taking over the same stale lock at the same instant can race.
 */
export async function acquireDirLock(dir: string): Promise<{ release(): Promise<void> }> {
  const folder = resolve(dir);
  const path = join(folder, LOCK_NAME);
  if (heldHere.has(folder)) {
    throw new Error(`The file store at ${folder} is already open in this process`);
  }
  // Claimed before the first await, so that two opens in one process cannot both pass.
  heldHere.add(folder);
  try {
    await createLockFile(folder, path);
  } catch (error) {
    heldHere.delete(folder);
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) {
        return;
      }
      released = true;
      heldHere.delete(folder);
      await unlink(path).catch(() => {});
    },
  };
}

async function createLockFile(folder: string, path: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, "wx", 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`, "utf8");
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) {
        throw error;
      }
      const owner = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
      if (Number.isSafeInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `The file store at ${folder} is in use by process ${owner}; the file store serves one process ` +
            "(set REDIS_URL to share state between processes)",
        );
      }
      await unlink(path).catch(() => {});
    }
  }
}

/** A killed process whose parent has not reaped it yet still answers signal 0: a zombie holds nothing. */
function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (name) state ..."; the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
