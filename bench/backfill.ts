// A year of backfill through a fake arXiv query API on loopback: generated pages (the recorded entries'
// texts under new ids, spread over each listing day's submission window), asked with no politeness
// delay, so what is measured is the work beside the requests. Prints the time each day takes to be
// scored, ranked and published from pages already read (as `picks backfill --json` reports it), the
// process's resident memory over the run, and what the year costs at arXiv's pace of one request
// every 3 s. Run alone with `node --import tsx bench/backfill.ts [days]`; `npm run bench` calls it.
// BENCH_NODE_FLAGS passes flags to the backfill's Node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { listingDayOf, listingDaysBetween, submissionWindow } from "../pipeline/domain/announcement.ts";
import { addDays } from "../pipeline/domain/calendar.ts";
import { type HistoryEntry, historyEntries, historyReply } from "../test/helpers/fake-arxiv-history.ts";
import { type FakeUpstream, startFakeUpstream } from "../test/helpers/fake-upstream.ts";
import { PICKS_BIN } from "../test/helpers/processes.ts";

const PAPERS_A_DAY = 300;
const LAST_DAY = "2025-11-21";

export interface BackfillFigures {
  days: number;
  papers: number;
  requests: number;
  wallSeconds: number;
  dayMs: { p50: number; p99: number; max: number };
  rssMb: { first: number; last: number; peak: number };
}

/** A listing day's generated entries: the recorded ones cycled, with new ids and times in the day's window. */
function generator(): (day: string) => HistoryEntry[] {
  const recorded = historyEntries(() => new Date(0)).entries;
  return (day) => {
    const { from, to } = submissionWindow(day);
    const step = (to.getTime() - from.getTime()) / PAPERS_A_DAY;
    const prefix = `${day.slice(2, 4)}${day.slice(5, 7)}`;
    const serial = Number(day.slice(8, 10)) * 1000;
    return Array.from({ length: PAPERS_A_DAY }, (_, index) => {
      const source = recorded[index % recorded.length] as HistoryEntry;
      const id = `${prefix}.${String(serial + index).padStart(5, "0")}`;
      const published = new Date(from.getTime() + Math.floor(index * step));
      const text = source.text
        .replace(/<id>[^<]*<\/id>/, `<id>http://arxiv.org/abs/${id}v1</id>`)
        .replace(
          /<published>[^<]*<\/published>/,
          `<published>${published.toISOString().slice(0, 19)}Z</published>`,
        )
        // Every generated paper in the six categories, so a day holds all of them.
        .replace(/<category term="[^"]*"/, '<category term="cs.AI"');
      return { id, published, categories: ["cs.AI", ...source.categories], text };
    });
  };
}

const percentile = (sorted: readonly number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;

async function rssMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** The fake arXiv query API answering every listing day with its generated papers. */
export async function startGeneratedArxiv(): Promise<FakeUpstream> {
  const header = historyEntries(() => new Date(0)).header;
  const generate = generator();
  const fake = await startFakeUpstream();
  fake.route("GET", "/api/query", (request) => {
    const range = /submittedDate:\[(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(
      request.query.get("search_query") ?? "",
    );
    const [year = 0, month = 1, day = 1, hour = 0, minute = 0] = (range?.slice(1) ?? []).map(Number);
    const from = Date.UTC(year, month - 1, day, hour, minute);
    // The range starts a minute before the window: the day is the one two minutes in.
    return historyReply(header, generate(listingDayOf(new Date(from + 120_000))), request);
  });
  return fake;
}

export async function runBackfillBench(listingDays = 250): Promise<BackfillFigures> {
  const fake = await startGeneratedArxiv();
  let first = LAST_DAY;
  while (listingDaysBetween(first, LAST_DAY).length < listingDays) first = addDays(first, -1);
  const root = await mkdtemp(join(tmpdir(), "picks-backfill-bench-"));
  const env = {
    ...process.env,
    ARXIV_API_URL: `${fake.url}/api/query`,
    ARXIV_MIN_INTERVAL_MS: "0",
    STATE_DIR: join(root, "state"),
  };
  const args = ["backfill", "--from", first, "--to", LAST_DAY, "--no-citations", "--yes", "--json"];
  const dirs = ["--out", join(root, "public"), "--runs", join(root, "runs")];
  const started = performance.now();
  const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeFlags, PICKS_BIN, ...args, ...dirs], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  const samples: number[] = [];
  const sampler = setInterval(async () => {
    if (child.pid !== undefined) samples.push(await rssMb(child.pid));
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(sampler);
  const wallSeconds = (performance.now() - started) / 1000;
  await fake.close();
  try {
    if (code !== 0) throw new Error(`picks backfill exited ${code}: ${stdout.slice(0, 500)}`);
    const result = JSON.parse(stdout) as {
      published: { date: string; ms: number }[];
      papers: number;
      http: { by_upstream: { arxiv?: { requests: number } } };
    };
    // Each day's whole curation as the backfill timed it: scoring, ranking, publishing and the feeds.
    const times = result.published.map((day) => day.ms);
    times.sort((a, b) => a - b);
    const measured = samples.filter(Number.isFinite);
    const tenth = Math.max(1, Math.floor(measured.length / 10));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    return {
      days: result.published.length,
      papers: result.papers,
      requests: result.http.by_upstream.arxiv?.requests ?? 0,
      wallSeconds,
      dayMs: { p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.at(-1) ?? Number.NaN },
      rssMb: {
        first: mean(measured.slice(0, tenth)),
        last: mean(measured.slice(-tenth)),
        peak: Math.max(...measured),
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function backfillLines(figures: BackfillFigures): string[] {
  const atArxivPace = (figures.requests * 3) / 60;
  const beside = figures.wallSeconds / 60;
  return [
    `backfill of ${figures.days} listing days, ${figures.papers} papers, ${figures.requests} requests through a fake arXiv with no delay: ${figures.wallSeconds.toFixed(0)} s`,
    `  a day scored, ranked and published from pages read: p50 ${figures.dayMs.p50} ms, p99 ${figures.dayMs.p99} ms, max ${figures.dayMs.max} ms  (target < 1000 ms)`,
    `  resident memory: ${figures.rssMb.first.toFixed(0)} MB over the first tenth of the run, ${figures.rssMb.last.toFixed(0)} MB over the last, peak ${figures.rssMb.peak.toFixed(0)} MB  (target flat, < 300 MB)`,
    `  at arXiv's pace (one request every 3 s) the requests take ${atArxivPace.toFixed(1)} min; the work beside them ${beside.toFixed(1)} min = ${(beside / atArxivPace).toFixed(2)} of the requests' time`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await runBackfillBench(Number(process.argv[2] ?? 250));
  for (const line of backfillLines(figures)) console.log(line);
}
