import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { CitationsFound } from "../../pipeline/domain/citations.ts";
import type { ScreenedDay } from "../../pipeline/domain/screened.ts";
import type { DailySnapshot } from "../../pipeline/domain/snapshot.ts";
import { PICKS_BIN, type Started, startPicksServer, startProcess } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";

const PROJECT_PUBLIC = fileURLToPath(new URL("../../public", import.meta.url));

/** Citation figures for one sample pick (the sample itself is curated without citations). */
export const CITED: CitationsFound = {
  status: "found",
  source: "semantic_scholar",
  fetched_at: "2026-11-21T06:00:00.000Z",
  citation_count: 1234,
  influential_citation_count: 56,
  reference_count: 78,
  lists: "ranked",
  top_references: [
    {
      title: "Attention Is All You Need",
      arxiv_id: "1706.03762",
      url: "https://www.semanticscholar.org/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776",
      year: 2017,
      citation_count: 100_000,
    },
  ],
  // Titles and urls come from the citation index: a hostile one must stay text and never become a link.
  top_citing: [
    {
      title: "<b>Bold</b> citing paper",
      arxiv_id: null,
      url: "javascript:alert(1)",
      year: 2026,
      citation_count: 3,
    },
  ],
  cites_picks: [],
  cited_by_picks: ["2406.12045"],
};

/** Copies the page (index.html and its assets) beside the snapshots of a published site. */
export async function addPage(publicDir: string): Promise<void> {
  await cp(join(PROJECT_PUBLIC, "index.html"), join(publicDir, "index.html"));
  await cp(join(PROJECT_PUBLIC, "assets"), join(publicDir, "assets"), { recursive: true });
}

/**
 * What `npm start` serves on a fresh clone: `picks serve --seed` curating the sample days in a new
 * folder, offline (nothing of the developer's environment points it at an upstream).
 */
export async function startSeededSite(prefix: string): Promise<{ server: Started; publicDir: string }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const publicDir = join(root, "public");
  await addPage(publicDir);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(S2_|OPENALEX_|LLM_|ARXIV_)/.test(name)),
  );
  const server = await startProcess(
    [PICKS_BIN, "serve", "--seed", "--port", "0", "--public", publicDir, "--runs", join(root, "runs")],
    { ...env, STATE_DIR: join(root, "state"), REDIS_URL: "", WORKER: "off" },
  );
  return { server, publicDir };
}

/**
 * A site as `picks serve` would have it: the three sample days published, the page and its assets
 * copied beside them, and citation figures on the first pick of `citedDay`.
 */
export async function publishSite(citedDay: string): Promise<{ publicDir: string; days: DailySnapshot[] }> {
  const { publicDir } = await publishSampleDays();
  await addPage(publicDir);
  const citedPath = join(publicDir, "v1", "daily", `${citedDay}.json`);
  const cited = JSON.parse(await readFile(citedPath, "utf8")) as DailySnapshot;
  (cited.picks[0] as DailySnapshot["picks"][number]).citations = CITED;
  await writeFile(citedPath, JSON.stringify(cited));
  const recent = JSON.parse(await readFile(join(publicDir, "v1", "recent.json"), "utf8")) as {
    days: Array<{ date: string }>;
  };
  const days = await Promise.all(
    recent.days.map(
      async (day) =>
        JSON.parse(
          await readFile(join(publicDir, "v1", "daily", `${day.date}.json`), "utf8"),
        ) as DailySnapshot,
    ),
  );
  return { publicDir, days };
}

// `picks serve` over a published site for the page's tests: its state in memory, and no LLM configured.
export function servePage(publicDir: string, env: Record<string, string> = {}): Promise<Started> {
  return startPicksServer(publicDir, {
    STATE_STORE: "memory",
    REDIS_URL: "",
    LLM_BASE_URL: "",
    VERIFY_LLM_BASE_URL: "",
    ...env,
  });
}

// The screened papers of `day` as a published site holds them.
export async function readScreenedDay(publicDir: string, day: string): Promise<ScreenedDay> {
  return JSON.parse(await readFile(join(publicDir, "v1", "screened", `${day}.json`), "utf8")) as ScreenedDay;
}

export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

async function serve(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The page a submission's url points at: an ordinary HTML page about an agent runtime. */
export function startRuntimePage(): Promise<LoopbackServer> {
  const html =
    "<!doctype html><html><head><title>Runtime</title></head><body><h1>An agent runtime</h1>" +
    "<p>Runs tool-calling agents in sandboxes with human-in-the-loop approval, audit logs of every " +
    "action, permissions per tool and a kill switch. Evaluated against baselines; code is open source.</p>" +
    "</body></html>";
  return serve(
    createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    }),
  );
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".xml": "application/atom+xml",
};

/**
 * A plain static host over `root`, like any CDN without rewrite rules: files by name, 404 with an
 * HTML body for everything else, no API. Test-only: the path is normalised and kept inside root.
 */
export function startStaticHost(root: string): Promise<LoopbackServer> {
  return serve(
    createServer(async (req, res) => {
      const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://host").pathname);
      const relative = normalize(pathname === "/" ? "/index.html" : pathname);
      const path = join(root, relative);
      if (!path.startsWith(root + sep) || req.method !== "GET") {
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
        return;
      }
      try {
        const body = await readFile(path);
        res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
      } catch {
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      }
    }),
  );
}
