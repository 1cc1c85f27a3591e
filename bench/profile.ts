// Where a server's time goes under load: runs `picks serve` with --cpu-prof and --trace-gc-nvp while wrk
// (or autocannon) drives one endpoint, then prints the top functions by self time, the same grouped
// by file or package, and the GC pauses per 1,000 requests.
//
//   npm run profile -- papers|mcp|latest|verify [seconds]      (PROFILE_KEEP=1 keeps the .cpuprofile)

import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { publishSampleDays } from "../test/helpers/published.ts";
import { enterpriseKey } from "./keys.ts";
import { LOAD_CLIENT, load, pinServer } from "./load.ts";
import { TARGETS, type TargetName } from "./targets.ts";
import { describeGc, gcFigures, startTracedServer } from "./traced-server.ts";

const _run = promisify(execFile);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Self-time shares (of the non-idle samples) by function and by file or package. */
export function selfTimes(profile: { nodes: ProfileNode[] }) {
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (hits === 0 || functionName === "(idle)" || functionName === "(program)") continue;
    total += hits;
    const place = placeOf(url) || functionName;
    const name = `${functionName || "(anonymous)"} ${place}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    byPlace.set(place, (byPlace.get(place) ?? 0) + hits);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, hits]) => ({ name, share: hits / total }));
  return { functions: top(byFunction, 25), places: top(byPlace, 15) };
}

/** A package's name, a project file's path, or node's internal module. */
function placeOf(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1] as string;
  if (url.startsWith("node:")) return url;
  const project = /\/(server|pipeline|cli|dist)\/(.*)$/.exec(url);
  return project ? `${project[1]}/${project[2]}` : url;
}

async function main(): Promise<void> {
  const which = (process.argv[2] ?? "papers") as TargetName;
  const seconds = Number(process.argv[3] ?? 10);
  if (!(which in TARGETS))
    throw new Error(`Expected one of ${Object.keys(TARGETS).join(", ")}, got ${which}`);
  const root = await mkdtemp(join(tmpdir(), "picks-profile-"));
  try {
    const { publicDir } = await publishSampleDays();
    const env = { STATE_DIR: join(root, "state"), VERIFY_RATE_LIMIT: "100000000" };
    const key = await enterpriseKey(env, "profile");
    const profiles = join(root, "profiles");
    const server = await startTracedServer(publicDir, env, { cpuProfileDir: profiles });
    pinServer(server.child.pid);
    const target = TARGETS[which](server.url, key);
    await load(target.url, { ...target.options, seconds: 1 });
    server.takePauses();
    const measured = await load(target.url, { ...target.options, seconds, serverPid: server.child.pid });
    const gc = gcFigures(server.takePauses(), measured.requests);
    await server.stop();
    console.log(`${target.name}, ${LOAD_CLIENT}, ${seconds} s`);
    console.log(
      `${Math.round(measured.rps)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, p99.9 ${measured.p999} ms, ` +
        `server CPU ${measured.cpuUsPerRequest?.toFixed(0)} µs a request, non-2xx ${measured.non2xx}`,
    );
    console.log(describeGc(gc));
    const [file] = (await readdir(profiles)).filter((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error("Expected a .cpuprofile from the server");
    const { functions, places } = selfTimes(JSON.parse(await readFile(join(profiles, file), "utf8")));
    // A share of the busy samples times the CPU a request cost: roughly µs of each request.
    const perRequest = measured.cpuUsPerRequest ?? 0;
    const percent = (share: number) =>
      `${(share * 100).toFixed(1).padStart(5)}% ~${(share * perRequest).toFixed(1).padStart(5)} µs`;
    console.log("\nself time by file or package (share of busy samples, start-up included):");
    for (const { name, share } of places) console.log(`  ${percent(share)}  ${name}`);
    console.log("\nself time by function:");
    for (const { name, share } of functions) console.log(`  ${percent(share)}  ${name}`);
    if (process.env.PROFILE_KEEP === "1") console.log(`\nprofile kept: ${join(profiles, file)}`);
  } finally {
    if (process.env.PROFILE_KEEP !== "1") await rm(root, { recursive: true, force: true });
  }
}

await main();
