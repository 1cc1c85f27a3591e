// A `picks serve` process run with V8's --trace-gc (and, for profiles, --cpu-prof), so a bench can
// report the garbage collector's pauses during a load beside the load's latency percentiles.
import { spawn } from "node:child_process";
import { PICKS_BIN, type Started } from "../test/helpers/processes.ts";

export interface GcPause {
  kind: "scavenge" | "mark-compact" | "other";
  ms: number;
  /** Bytes this collection moved from the young generation to the old one. */
  promoted: number;
}

export interface TracedServer extends Started {
  /** The pauses seen since the last call (the warm-up, a previous load), then cleared. */
  takePauses(): GcPause[];
}

// V8's --trace-gc-nvp line, which also says what each collection promoted. Node 20 writes names and
// values, "[pid:0x..]  1234 ms: pause=1.2 mutator=3.4 gc=s ... promoted=168000 ...", and Node 26 a
// JSON object, "[pid:0x..:0]  1234 ms: GC: {"pause":1.1,"gc":"s",...,"promoted":0,...}".
const NVP_LINE = /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]\s+[\d.]+ ms: (.*)$/;
const KINDS: Record<string, GcPause["kind"]> = { s: "scavenge", mc: "mark-compact" };

/** Parses one --trace-gc-nvp line (with the isolate it names); undefined for any other output. */
export function parseGcLine(line: string): (GcPause & { isolate: string }) | undefined {
  const found = NVP_LINE.exec(line);
  if (!found) return undefined;
  const [, isolate = "", rest = ""] = found;
  let fields: Record<string, unknown>;
  if (rest.startsWith("GC: {")) {
    try {
      fields = JSON.parse(rest.slice(4)) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  } else if (rest.startsWith("pause=")) {
    fields = Object.fromEntries(rest.split(" ").map((pair) => pair.split("=", 2)));
  } else {
    return undefined;
  }
  const ms = Number(fields.pause);
  if (!Number.isFinite(ms)) return undefined;
  return { kind: KINDS[String(fields.gc)] ?? "other", ms, promoted: Number(fields.promoted) || 0, isolate };
}

/** The program served: BENCH_PICKS_BIN runs another build of it (another checkout's bin/picks.js), for a before and after. */
const PROGRAM = process.env.BENCH_PICKS_BIN || PICKS_BIN;

/**
 * Starts `picks serve` traced; `cpuProfileDir` also writes a .cpuprofile there when it stops, and
 * `program` serves another build's bin/picks.js.
 */
export function startTracedServer(
  publicDir: string,
  env: Record<string, string>,
  options: { cpuProfileDir?: string; program?: string } = {},
): Promise<TracedServer> {
  const flags = ["--trace-gc", "--trace-gc-nvp"];
  if (options.cpuProfileDir) flags.push("--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`);
  const program = options.program ?? PROGRAM;
  const child = spawn(process.execPath, [...flags, program, "serve", "--port", "0", "--public", publicDir], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let pauses: GcPause[] = [];
  let mainIsolate: string | undefined;
  let partial = "";
  return new Promise((resolve, reject) => {
    let resolved = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        // Only the serving thread's isolate, the first to collect (while the program loads): a worker
        // thread's pauses (checkpoints, deliveries) do not stop the serving thread.
        const pause = parseGcLine(line);
        if (pause) mainIsolate ??= pause.isolate;
        if (pause && pause.isolate === mainIsolate)
          pauses.push({ kind: pause.kind, ms: pause.ms, promoted: pause.promoted });
        const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (url && !resolved) {
          resolved = true;
          resolve({
            url,
            child,
            takePauses: () => {
              const taken = pauses;
              pauses = [];
              return taken;
            },
            stop: () =>
              new Promise((done) => {
                // A server that died under load has no exit left to wait for.
                if (child.exitCode !== null || child.signalCode !== null) return done();
                child.once("exit", () => done());
                child.kill("SIGTERM");
                setTimeout(() => child.kill("SIGKILL"), 5000).unref();
              }),
          });
        }
      }
    });
    child.once("exit", (code) => {
      if (!resolved) reject(new Error(`picks serve exited with ${code}`));
    });
  });
}

export interface GcFigures {
  scavenges: number;
  markCompacts: number;
  /** Pauses per 1,000 requests of the load. */
  per1000: number;
  /** Milliseconds of pause per 1,000 requests. */
  msPer1000: number;
  p50Ms: number;
  maxMs: number;
  /** Bytes promoted to the old generation, on average a scavenge. */
  promotedPerScavenge: number;
  /** Bytes promoted by scavenges, per request of the load. */
  promotedPerRequest: number;
}

/** Sums the pauses of one load of `requests` requests. */
export function gcFigures(pauses: GcPause[], requests: number): GcFigures {
  const times = pauses.map((pause) => pause.ms).sort((a, b) => a - b);
  const total = times.reduce((sum, ms) => sum + ms, 0);
  const perThousand = requests > 0 ? 1000 / requests : 0;
  const scavenges = pauses.filter((pause) => pause.kind === "scavenge");
  const promoted = scavenges.reduce((sum, pause) => sum + pause.promoted, 0);
  return {
    scavenges: scavenges.length,
    markCompacts: pauses.filter((pause) => pause.kind === "mark-compact").length,
    per1000: pauses.length * perThousand,
    msPer1000: total * perThousand,
    p50Ms: times[Math.floor(times.length / 2)] ?? 0,
    maxMs: times.at(-1) ?? 0,
    promotedPerScavenge: scavenges.length > 0 ? promoted / scavenges.length : 0,
    promotedPerRequest: requests > 0 ? promoted / requests : 0,
  };
}

/** One line of GC figures for a report. */
export function describeGc(gc: GcFigures): string {
  return (
    `GC ${gc.scavenges} scavenges + ${gc.markCompacts} mark-compacts, ${gc.per1000.toFixed(2)} pauses and ` +
    `${gc.msPer1000.toFixed(2)} ms of pause per 1,000 requests, median pause ${gc.p50Ms.toFixed(2)} ms, ` +
    `longest ${gc.maxMs.toFixed(2)} ms; scavenges promoted ${Math.round(gc.promotedPerScavenge)} bytes a scavenge, ` +
    `${gc.promotedPerRequest.toFixed(1)} bytes a request`
  );
}
