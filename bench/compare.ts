// `npm run bench -- --compare REF [--runs N] [--only papers,mcp,verify,latest]`: this working tree
// against another commit, A/B. REF is built in a git worktree (its node_modules linked to this one's
// when the lockfile is the same, `npm ci` otherwise); then, for each load, the two builds take turns,
// a fresh server each time (each on a new state folder), N times each (default 6, or BENCH_RUNS), the
// first of each round swapped so that neither build always runs after the other. The loads are the
// bench's own (bench/targets.ts), driven as the bench drives them: wrk on one core, the server pinned
// to the other, BENCH_WARMUP seconds unmeasured (default 3), then BENCH_SECONDS measured (default 6).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { publishSampleDays } from "../test/helpers/published.ts";
import { type Summary, summarize, verdict } from "./ab-verdict.ts";
import { enterpriseKey } from "./keys.ts";
import { LOAD_CLIENT, type LoadResult, load, pinServer } from "./load.ts";
import { TARGETS, type TargetName } from "./targets.ts";
import { gcFigures, startTracedServer } from "./traced-server.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const warmUpSeconds = Math.max(0, Number(process.env.BENCH_WARMUP ?? 3));

interface Build {
  label: string;
  /** The build's bin/picks.js. */
  program: string;
}

/** What one run of one load on one fresh server gave. */
type Run = LoadResult & { gcMsPer1000: number; promotedPerRequest: number; markCompacts: number };

const FIGURES: ReadonlyArray<{
  name: string;
  better: "higher" | "lower";
  of: (run: Run) => number;
  digits: number;
}> = [
  { name: "req/s", better: "higher", of: (run) => run.rps, digits: 0 },
  {
    name: "server CPU µs a request",
    better: "lower",
    of: (run) => run.cpuUsPerRequest ?? Number.NaN,
    digits: 1,
  },
  { name: "p99 ms", better: "lower", of: (run) => run.p99, digits: 2 },
  { name: "GC pause ms per 1,000 requests", better: "lower", of: (run) => run.gcMsPer1000, digits: 2 },
  { name: "bytes promoted a request", better: "lower", of: (run) => run.promotedPerRequest, digits: 1 },
  { name: "mark-compacts a run", better: "lower", of: (run) => run.markCompacts, digits: 1 },
];

/** A flag that is wrong: its message is the whole answer, without a stack. */
class UsageError extends Error {}

function options(argv: string[]): { ref: string; runs: number; loads: TargetName[] } {
  let values: { compare?: string; runs?: string; only?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { compare: { type: "string" }, runs: { type: "string" }, only: { type: "string" } },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const ref = values.compare ?? "";
  if (ref === "")
    throw new UsageError("Expected --compare to name a commit, e.g. `--compare main`, got nothing");
  const runsText = values.runs ?? process.env.BENCH_RUNS ?? "6";
  const runs = Number(runsText);
  if (!Number.isInteger(runs) || runs < 2)
    throw new UsageError(
      `Expected --runs (or BENCH_RUNS) to be a whole number of at least 2 (one run has no spread), got \`${runsText}\``,
    );
  const names = Object.keys(TARGETS) as TargetName[];
  const loads = (values.only?.split(",") ?? names) as TargetName[];
  const unknown = loads.find((name) => !names.includes(name));
  if (unknown !== undefined)
    throw new UsageError(`Expected --only to list ${names.join(", ")}, got \`${unknown}\``);
  return { ref, runs, loads };
}

const git = async (args: string[]) => (await run("git", args, { cwd: ROOT })).stdout.trim();

/** Builds bin/picks.js's bundle in `dir`, with the Node that runs the bench. */
const build = (dir: string) => run(process.execPath, [join(dir, "bin", "build.mjs")], { cwd: dir });

/** Checks REF out into a worktree under `root` and builds it. */
async function buildReference(ref: string, root: string): Promise<Build & { dir: string }> {
  const commit = await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch(() => "");
  if (commit === "")
    throw new UsageError(`Expected --compare to name a commit of this repository, got \`${ref}\``);
  const dir = join(root, "reference");
  await git(["worktree", "add", "--detach", dir, commit]);
  const lockfile = (at: string) => readFile(join(at, "package-lock.json"), "utf8");
  if ((await lockfile(dir)) === (await lockfile(ROOT))) {
    await symlink(await realpath(join(ROOT, "node_modules")), join(dir, "node_modules"));
  } else {
    console.log(`${ref}'s lockfile differs from this tree's: npm ci in its worktree`);
    await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir });
  }
  await build(dir);
  return { label: `${ref} (${commit.slice(0, 7)})`, program: join(dir, "bin", "picks.js"), dir };
}

/** One fresh server of `build` on its own state, loaded with `name` after its warm-up. */
async function measure(build: Build, name: TargetName, site: string, root: string): Promise<Run> {
  const state = await mkdtemp(join(root, "state-"));
  const env = { STATE_DIR: state, VERIFY_RATE_LIMIT: "100000000" };
  const key = await enterpriseKey(env, "compare", build.program);
  const server = await startTracedServer(site, env, { program: build.program });
  pinServer(server.child.pid);
  try {
    const target = TARGETS[name](server.url, key);
    if (warmUpSeconds > 0) await load(target.url, { ...target.options, seconds: warmUpSeconds });
    server.takePauses();
    const measured = await load(target.url, { ...target.options, seconds, serverPid: server.child.pid });
    if (measured.non2xx > 0 || measured.errors > 0)
      throw new Error(
        `${build.label} answered ${name} with ${measured.non2xx} non-2xx and ${measured.errors} errors`,
      );
    const gc = gcFigures(server.takePauses(), measured.requests);
    return {
      ...measured,
      gcMsPer1000: gc.msPer1000,
      promotedPerRequest: gc.promotedPerRequest,
      markCompacts: gc.markCompacts,
    };
  } finally {
    await server.stop();
    await rm(state, { recursive: true, force: true });
  }
}

const shown = (summary: Summary, digits: number) =>
  `${summary.median.toFixed(digits)} (${summary.min.toFixed(digits)}-${summary.max.toFixed(digits)})`;

/** The table of one load: each figure's median (range) for both builds, and the verdict. */
function compareLines(builds: readonly [Build, Build], runs: readonly [Run[], Run[]]): string[] {
  const rows = [["figure", `${builds[0].label}: median (min-max)`, builds[1].label, "difference"]];
  for (const figure of FIGURES) {
    const a = runs[0].map(figure.of);
    const b = runs[1].map(figure.of);
    const found = verdict(a, b, figure.better);
    const sign = found.difference > 0 ? "+" : "";
    const spread = found.spread.toFixed(figure.digits);
    const outcome = found.beyond
      ? `BEYOND the spread (${spread}): ${found.better ? "better" : "worse"}`
      : `within the spread (${spread})`;
    const relative = Number.isFinite(found.relative)
      ? ` (${sign}${(found.relative * 100).toFixed(1)} %)`
      : "";
    rows.push([
      figure.name,
      shown(summarize(a), figure.digits),
      shown(summarize(b), figure.digits),
      `${sign}${found.difference.toFixed(figure.digits)}${relative}, ${outcome}`,
    ]);
  }
  const widths = [0, 1, 2].map(
    (column) => Math.max(...rows.map((row) => (row[column] as string).length)) + 2,
  );
  return rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("")}`);
}

async function main(): Promise<void> {
  const { ref, runs, loads } = options(process.argv.slice(2));
  const root = await mkdtemp(join(tmpdir(), "picks-compare-"));
  let worktree: string | undefined;
  let site: string | undefined;
  try {
    const head = await git(["rev-parse", "--short", "HEAD"]);
    const dirty = (await git(["status", "--porcelain", "--untracked-files=no"])) !== "";
    const candidate: Build = {
      label: `this tree (${head}${dirty ? " + changes" : ""})`,
      program: join(ROOT, "bin", "picks.js"),
    };
    const reference = await buildReference(ref, root);
    worktree = reference.dir;
    await build(ROOT);
    const { publicDir } = await publishSampleDays();
    site = dirname(publicDir);
    console.log(`Load generator: ${LOAD_CLIENT}; Node ${process.version}.`);
    console.log(
      `${reference.label} against ${candidate.label}: ${runs} runs of each per load, alternated, a fresh server ` +
        `each; ${warmUpSeconds} s warm-up, ${seconds} s measured. A difference counts when it is larger than the ` +
        "wider spread (largest run minus smallest) of the two builds.",
    );
    for (const name of loads) {
      const results: [Run[], Run[]] = [[], []];
      for (let round = 0; round < runs; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const which of order) {
          const build = which === 0 ? reference : candidate;
          const result = await measure(build, name, publicDir, root);
          results[which as 0 | 1].push(result);
          console.log(
            `  ${name} run ${round + 1} of ${runs}, ${build.label}: ${Math.round(result.rps)} req/s, ` +
              `${result.cpuUsPerRequest?.toFixed(1)} µs a request, p99 ${result.p99.toFixed(2)} ms, ` +
              `${result.markCompacts} mark-compacts, ${result.promotedPerRequest.toFixed(1)} bytes promoted a request`,
          );
        }
      }
      console.log(`\n${TARGETS[name]("", "").name}:`);
      for (const line of compareLines([reference, candidate], results)) console.log(line);
      console.log("");
    }
  } finally {
    if (worktree) await git(["worktree", "remove", "--force", worktree]).catch(() => {});
    await rm(root, { recursive: true, force: true });
    if (site) await rm(site, { recursive: true, force: true });
  }
}

await main().catch((error: unknown) => {
  if (!(error instanceof UsageError)) throw error;
  console.error(error.message);
  process.exitCode = 2;
});
