import { readdir, readFile } from "node:fs/promises";

// Linux reports utime and stime in clock ticks, 100 a second on every usual configuration.
const TICK_MS = 10;

/** A /proc stat file's fields after the command name: field N of proc(5) is at index N - 3. */
async function statFields(statPath: string): Promise<string[]> {
  return (await readFile(statPath, "utf8")).split(") ")[1]?.split(" ") ?? [];
}

/** CPU time (user + system, fields 14 and 15) in ms from stat fields. */
const cpuMsOfFields = (fields: string[]): number => (Number(fields[11]) + Number(fields[12])) * TICK_MS;

/** CPU time (user + system) in ms from a /proc stat file. */
async function cpuMsIn(statPath: string): Promise<number> {
  return cpuMsOfFields(await statFields(statPath));
}

/**
 * A process's CPU time so far (user + system), in ms, from /proc/<pid>/stat. Under the machine's
 * other load it stretches far less than throughput does, so it is the steadier figure of what a
 * request costs.
 */
export const cpuMsOf = (pid: number): Promise<number> => cpuMsIn(`/proc/${pid}/stat`);

/**
 * The CPU time of a process's threads other than its main one (whose thread id is the pid): in a
 * server, what its worker threads (webhook deliveries, checkpoints) and V8's and libuv's helpers used.
 */
export async function offMainCpuMsOf(pid: number): Promise<number> {
  const [all, main] = await Promise.all([cpuMsOf(pid), cpuMsIn(`/proc/${pid}/task/${pid}/stat`)]);
  return all - main;
}

/**
 * The CPU time, in ms, of a process's threads running at scheduling priority `nice`: in a server,
 * the webhook delivery thread (nice 10) alone, without V8's helper threads, which work for the
 * serving thread too (its garbage collection, its compiles) and under load would count in a figure
 * of everything off the serving thread. A thread that ended since an earlier call no longer counts.
 */
export async function niceThreadsCpuMsOf(pid: number, nice: number): Promise<number> {
  const tids = await readdir(`/proc/${pid}/task`);
  const times = await Promise.all(
    tids.map(async (tid) => {
      try {
        const fields = await statFields(`/proc/${pid}/task/${tid}/stat`);
        // Field 19 of stat: nice.
        return Number(fields[16]) === nice ? cpuMsOfFields(fields) : 0;
      } catch {
        return 0; // The thread ended between the listing and the read.
      }
    }),
  );
  return times.reduce((sum, ms) => sum + ms, 0);
}
