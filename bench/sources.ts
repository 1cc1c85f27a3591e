// The live sources against fake upstreams on loopback: how many requests citation enrichment uses, and
// where the time of a full 300-candidate arXiv curation goes when only arXiv's politeness delay should
// count. Run alone with `node --import tsx bench/sources.ts`; `runSourcesBench()` returns the figures.
// No recorded 300-entry listing exists, so the fake listing and API answers are rendered from real
// papers: the 250 of a recorded day and 50 of a recorded API answer.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCitationLookup } from "../pipeline/citations/citation-lookup.ts";
import { curate } from "../pipeline/curate.ts";
import type { Candidate } from "../pipeline/domain/candidate.ts";
import { DEFAULT_SELECTION } from "../pipeline/domain/selection.ts";
import { createHttpClient } from "../pipeline/http.ts";
import { loadRubric } from "../pipeline/rubric-file.ts";
import { readApiFeed } from "../pipeline/sources/arxiv-entries.ts";
import { createArxivSource } from "../pipeline/sources/arxiv-source.ts";
import { atomFeed } from "../pipeline/sources/arxiv-xml.ts";
import { createFileSource } from "../pipeline/sources/file-source.ts";
import {
  type FakeReply,
  fixtureText,
  type SeenRequest,
  startFakeUpstream,
  wrappedBody,
} from "../test/helpers/fake-upstream.ts";

const LISTING = fileURLToPath(
  new URL("../../shared/fixtures/candidates/listing-2026-06-12-314-rows-250-unique.jsonl", import.meta.url),
);
const DAY = "2026-06-12";

export interface SourcesFigures {
  citationRequests: Array<{ picks: number; requests: number; target: number }>;
  curate: {
    candidates: number;
    picks: number;
    arxivRequests: number;
    allRequests: number;
    wallMs: number;
    politenessMs: number;
    /** Wall time minus the politeness waits: what the pipeline itself costs. */
    outsideDelayMs: number;
    stages: Record<string, number>;
  };
}

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const NS = 'xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"';

function listingXml(papers: readonly Candidate[]): string {
  const entries = papers.map(
    (paper) => `<entry><id>oai:arXiv.org:${paper.id}v1</id><title>${xmlText(paper.title)}</title>
<summary>arXiv:${paper.id}v1 Announce Type: new
Abstract: ${xmlText(paper.summary)}</summary>${paper.categories.map((c) => `<category term="${c}"/>`).join("")}
<published>${DAY}T00:00:00-04:00</published><arxiv:announce_type>new</arxiv:announce_type>
<dc:creator>${xmlText(paper.authors.join(", "))}</dc:creator></entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed ${NS} xmlns:dc="http://purl.org/dc/elements/1.1/">
<updated>${DAY}T04:00:00+00:00</updated>${entries.join("\n")}</feed>`;
}

function apiXml(papers: readonly Candidate[]): string {
  const entries = papers.map(
    (paper) => `<entry><id>http://arxiv.org/abs/${paper.id}v1</id><title>${xmlText(paper.title)}</title>
<summary>${xmlText(paper.summary)}</summary>${paper.authors.map((a) => `<author><name>${xmlText(a)}</name></author>`).join("")}
${paper.comment ? `<arxiv:comment>${xmlText(paper.comment)}</arxiv:comment>` : ""}${paper.categories.map((c) => `<category term="${c}"/>`).join("")}</entry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed ${NS} xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
<opensearch:totalResults>${papers.length}</opensearch:totalResults>${entries.join("\n")}</feed>`;
}

async function realPapers(): Promise<Candidate[]> {
  const day = (await createFileSource(LISTING).load(DAY)).candidates;
  const api = readApiFeed(atomFeed(fixtureText("arxiv/api-query-100-entries.xml"), "api")).entries;
  const more = api.slice(0, 50).map(({ id, title, summary, authors, categories, comment }) => ({
    id,
    title,
    summary,
    authors,
    categories,
    ...(comment ? { comment } : {}),
  }));
  return [...day, ...more];
}

const RECORD = wrappedBody<unknown[]>("semantic-scholar/paper-batch-4-ids-one-null.json")[1] as object;
const s2Answer = (request: SeenRequest): FakeReply => ({
  body: JSON.stringify((JSON.parse(request.body) as { ids: string[] }).ids.map(() => RECORD)),
});

export async function runSourcesBench(options: { arxivDelayMs?: number } = {}): Promise<SourcesFigures> {
  const fake = await startFakeUpstream();
  const root = await mkdtemp(join(tmpdir(), "picks-bench-sources-"));
  try {
    fake.route("POST", "/graph/v1/paper/batch", s2Answer);
    const citationRequests: SourcesFigures["citationRequests"] = [];
    for (const picks of [5, 150, 500, 501, 1200]) {
      const client = createHttpClient({ userAgent: "bench" });
      const lookup = createCitationLookup({
        semanticScholar: { client, baseUrl: `${fake.url}/graph/v1` },
        openAlex: { client, baseUrl: fake.url },
        now: () => new Date(),
      });
      await lookup.lookup(Array.from({ length: picks }, (_, i) => `2601.${String(i).padStart(5, "0")}`));
      citationRequests.push({ picks, requests: client.counts().requests, target: Math.ceil(picks / 500) });
      await client.close();
    }

    const papers = await realPapers();
    const byId = new Map(papers.map((paper) => [paper.id, paper]));
    fake.route("GET", "/atom/cs.AI+cs.LG", { body: listingXml(papers) });
    fake.route("GET", "/api/query", (request) => {
      const ids = request.query.get("id_list")?.split(",") ?? [];
      return { body: apiXml(ids.map((id) => byId.get(id)).filter((paper) => paper !== undefined)) };
    });
    const client = createHttpClient({
      userAgent: "bench",
      upstreams: {
        arxiv: { concurrency: 1, minIntervalMs: options.arxivDelayMs ?? 3000 },
        semantic_scholar: { concurrency: 1, minIntervalMs: 1000 },
      },
    });
    const started = performance.now();
    const stages: Record<string, number> = {};
    const result = await curate({
      date: DAY,
      source: createArxivSource({
        client,
        categories: ["cs.AI", "cs.LG"],
        listingUrl: `${fake.url}/atom`,
        apiUrl: `${fake.url}/api/query`,
      }),
      outDir: join(root, "public"),
      runsDir: join(root, "runs"),
      rubric: await loadRubric(),
      selection: DEFAULT_SELECTION,
      now: () => new Date(),
      citations: createCitationLookup({
        semanticScholar: { client, baseUrl: `${fake.url}/graph/v1` },
        now: () => new Date(),
      }),
      httpCounts: () => client.counts(),
      onProgress: (stage) => {
        stages[stage] ??= Math.round(performance.now() - started);
      },
    });
    const wallMs = performance.now() - started;
    await client.close();
    const counts = result.record.http;
    return {
      citationRequests,
      curate: {
        candidates: result.snapshot.counts.screened,
        picks: result.snapshot.picks.length,
        arxivRequests: counts.by_upstream.arxiv?.requests ?? 0,
        allRequests: counts.requests,
        wallMs: Math.round(wallMs),
        politenessMs: counts.politeness_wait_ms,
        outsideDelayMs: Math.round(wallMs - counts.politeness_wait_ms),
        stages,
      },
    };
  } finally {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await runSourcesBench();
  for (const { picks, requests, target } of figures.citationRequests) {
    console.log(
      `citation enrichment of ${picks} picks: ${requests} requests  (target ceil(n/500) = ${target})`,
    );
  }
  const c = figures.curate;
  console.log(
    `curate --source arxiv, ${c.candidates} candidates, ${c.picks} picks, ${c.arxivRequests} arXiv requests ` +
      `(${c.allRequests} in all): ${(c.wallMs / 1000).toFixed(2)} s wall, ${(c.politenessMs / 1000).toFixed(2)} s ` +
      `politeness delay, ${c.outsideDelayMs} ms outside the delay  (target < 1000 ms)`,
  );
  console.log(`  stage start times (ms): ${JSON.stringify(c.stages)}`);
}
