import { readFile } from "node:fs/promises";

// Linux reports utime and stime in clock ticks, 100 a second on every usual configuration.
const TICK_MS = 10;

/** CPU time (user + system) in ms from a /proc stat file. */
async function cpuMsIn(statPath: string): Promise<number> {
  const fields = (await readFile(statPath, "utf8")).split(") ")[1]?.split(" ") ?? [];
  // Fields 14 and 15 of stat (utime, stime), counted after the command name.
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
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
