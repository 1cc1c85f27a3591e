import { readFile } from "node:fs/promises";

// Linux reports utime and stime in clock ticks, 100 a second on every usual configuration.
const TICK_MS = 10;

/**
 * A process's CPU time so far (user + system), in ms, from /proc/<pid>/stat. Under the machine's
 * other load it stretches far less than throughput does, so it is the steadier figure of what a
 * request costs.
 */
export async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  // Fields 14 and 15 of stat (utime, stime), counted after the command name.
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
