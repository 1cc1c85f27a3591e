import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScreenedDay } from "../../../pipeline/domain/screened.ts";
import type { ScreenedPapersList } from "../../../pipeline/domain/screened-answers.ts";
import type { AppContext } from "../../../server/context.ts";
import { createSnapshotCache, type SnapshotCache } from "../../../server/snapshots/snapshot-cache.ts";
import { type Call, keyedClientFor, MODES, useClient } from "../../helpers/app-client.ts";
import { testContext } from "../../helpers/context.ts";
import { DAY_WITHOUT_SCREENED, publishScreenedSite } from "../../helpers/screened-site.ts";

let snapshots: SnapshotCache;
let screened: Map<string, ScreenedDay>;
let oldestOnly: string;
beforeAll(async () => {
  const site = await publishScreenedSite();
  screened = site.screened;
  oldestOnly = site.oldestOnly;
  snapshots = await createSnapshotCache({ publicDir: site.publicDir });
}, 60_000);
afterAll(() => snapshots.close());

/** Every screened paper of the days from `from` on, newest day first, each day in the model's order. */
function expectedFrom(
  from: string,
): Array<{ date: string; arxiv_id: string; reason: string; picked: boolean }> {
  return [...screened.values()]
    .filter((day) => day.date >= from)
    .sort((a, b) => (a.date < b.date ? 1 : -1))
    .flatMap((day) =>
      day.papers.map((paper) => ({
        date: day.date,
        arxiv_id: paper.arxiv_id,
        reason: paper.reason,
        picked: paper.picked,
      })),
    );
}

const ENUM_ERROR = (input: string) => ({
  type: "enum",
  loc: ["query", "scope"],
  msg: "Input should be 'picks' or 'screened'",
  input,
  ctx: { expected: "'picks' or 'screened'" },
});

describe.each(MODES)("the papers queries' screened scope (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  let context: AppContext;
  let free: string;
  let enterprise: string;

  beforeAll(async () => {
    context = await testContext(snapshots);
    ({ call, close, free, enterprise } = await keyedClientFor(mode, context));
  });
  afterAll(() => close());

  const get = (path: string, key: string) => call(path, { headers: { "x-api-key": key } });
  const text = async (path: string, key: string) => {
    const response = await get(path, key);
    expect(response.status, path).toBe(200);
    return response.text();
  };

  it("answers a picks query with the same bytes with or without scope=picks", async () => {
    for (const query of ["", "?days=30", "?days=30&limit=3&min_reg_fit=2", "?axis=A4&min_score=1"]) {
      const before = await text(`/v1/papers${query}`, enterprise);
      expect(JSON.parse(before)).not.toHaveProperty("applied.scope");
      const sep = query === "" ? "?" : "&";
      expect(await text(`/v1/papers${query}${sep}scope=picks`, enterprise)).toBe(before);
      expect(await text(`/v1/papers${query}${sep}scope=picks`, free)).toBe(
        await text(`/v1/papers${query}`, free),
      );
    }
  });

  it("gives a free key seven days of screened papers, no more, and its page of 25", async () => {
    const response = await get("/v1/papers?scope=screened&days=30&limit=100", free);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toMatch(/^"quota";r=\d+;t=\d+$/);
    const answer = (await response.json()) as ScreenedPapersList;
    const expected = expectedFrom("2026-06-06");
    expect(answer.applied).toMatchObject({
      scope: "screened",
      days: 7,
      limit: 25,
      capped: ["days", "limit"],
      from: "2026-06-06",
      to: "2026-06-12",
    });
    expect(answer.total).toBe(expected.length);
    expect(answer.total).toBeGreaterThan(250);
    expect(answer.returned).toBe(25);
    expect(
      answer.papers.map(({ date, arxiv_id, reason, picked }) => ({ date, arxiv_id, reason, picked })),
    ).toEqual(expected.slice(0, 25));
    // Only the seven days: an older day's papers are never in a free key's answer, at any offset.
    const dates = new Set(expectedFrom("2026-06-01").map((paper) => paper.date));
    expect([...dates].filter((date) => date < "2026-06-06").length).toBeGreaterThan(0);
  });

  it("lists every screened paper of the window to a key whose history reaches it, skipping days with no file", async () => {
    const answer = JSON.parse(
      await text("/v1/papers?scope=screened&days=30&limit=5000", enterprise),
    ) as ScreenedPapersList;
    const expected = expectedFrom("2026-05-14");
    expect(answer.applied).toMatchObject({ scope: "screened", from: "2026-05-14", capped: [] });
    expect(answer.papers.map(({ date, arxiv_id }) => `${date}#${arxiv_id}`)).toEqual(
      expected.map(({ date, arxiv_id }) => `${date}#${arxiv_id}`),
    );
    expect(answer.papers.some((paper) => paper.date === DAY_WITHOUT_SCREENED)).toBe(false);
    const picked = answer.papers.filter((paper) => paper.picked && paper.date === "2026-06-12");
    expect(picked).toHaveLength(6);
    expect(picked.every((paper) => paper.reason.startsWith("picked, rank "))).toBe(true);
  });

  it("filters screened papers as it filters picks", async () => {
    const all = JSON.parse(
      await text("/v1/papers?scope=screened&days=30&limit=5000", enterprise),
    ) as ScreenedPapersList;
    for (const [query, keep] of [
      ["min_reg_fit=3", (paper: ScreenedPapersList["papers"][number]) => paper.reg_fit >= 3],
      ["min_score=8", (paper: ScreenedPapersList["papers"][number]) => paper.total >= 8],
      ["axis=A4&min_score=2", (paper: ScreenedPapersList["papers"][number]) => (paper.axes.A4 ?? 0) >= 2],
    ] as const) {
      const answer = JSON.parse(
        await text(`/v1/papers?scope=screened&days=30&limit=5000&${query}`, enterprise),
      ) as ScreenedPapersList;
      const expected = all.papers.filter(keep);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(expected.length, query).toBeLessThan(all.papers.length);
      expect(answer.papers, query).toEqual(expected);
      expect(answer.total, query).toBe(expected.length);
    }
  });

  it("refuses a scope it does not know with FastAPI's 422, before spending a call", async () => {
    const before = (await (await get("/v1/me", free)).json()) as { usage: { used: number } };
    const response = await get("/v1/papers?scope=everything", free);
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe(JSON.stringify({ detail: [ENUM_ERROR("everything")] }));
    const both = await get("/v1/papers?limit=0&scope=", free);
    expect(((await both.json()) as { detail: Array<{ loc: string[] }> }).detail.map((d) => d.loc)).toEqual([
      ["query", "limit"],
      ["query", "scope"],
    ]);
    const paper = await get("/v1/papers/2606.12587?scope=everything", free);
    expect(paper.status).toBe(422);
    expect(await paper.text()).toBe(JSON.stringify({ detail: [ENUM_ERROR("everything")] }));
    const after = (await (await get("/v1/me", free)).json()) as { usage: { used: number } };
    expect(after.usage.used).toBe(before.usage.used);
  });

  it("answers one screened paper, picked or not, with scope=screened, and as before without it", async () => {
    const day = screened.get("2026-06-12") as ScreenedDay;
    const left = day.papers.find((paper) => !paper.picked) as ScreenedDay["papers"][number];
    const pick = day.papers.find((paper) => paper.picked) as ScreenedDay["papers"][number];

    const unscoped = await get(`/v1/papers/${left.arxiv_id}`, free);
    expect(unscoped.status).toBe(404);
    expect(await unscoped.json()).toEqual({ detail: `No pick with arXiv id ${left.arxiv_id}` });

    const answer = await get(`/v1/papers/${left.arxiv_id}v2?scope=screened`, free);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      ...left,
      date: "2026-06-12",
      pdf_url: `https://arxiv.org/pdf/${left.arxiv_id}`,
      rubric_version: day.rubric_version,
    });

    const picked = (await (await get(`/v1/papers/${pick.arxiv_id}?scope=screened`, free)).json()) as {
      picked: boolean;
      reason: string;
    };
    expect(picked).toMatchObject({ picked: true, reason: pick.reason });
    const full = (await (await get(`/v1/papers/${pick.arxiv_id}`, free)).json()) as Record<string, unknown>;
    expect(full).toMatchObject({ arxiv_id: pick.arxiv_id, rank: 1 });
    expect(full).not.toHaveProperty("picked");

    const unknown = await get("/v1/papers/2606.99999?scope=screened", free);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No screened paper with arXiv id 2606.99999" });
  });

  it("refuses a free key a paper screened only before its seven days, and spends nothing", async () => {
    const response = await get(`/v1/papers/${oldestOnly}?scope=screened`, free);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      detail: `${oldestOnly} was screened on 2026-06-01, outside the 7 days of history of the free tier.`,
    });
    const found = (await (await get(`/v1/papers/${oldestOnly}?scope=screened`, enterprise)).json()) as {
      date: string;
      picked: boolean;
    };
    expect(found.date).toBe("2026-06-01");
  });
});

describe.each(MODES)("the screened files over HTTP (%s)", (mode) => {
  const call = useClient(mode, () => testContext(snapshots));

  it("serves a day's screened file without a key, 404 where none is published, 422 for a bad date", async () => {
    const response = await call("/v1/screened/2026-06-12");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(response.headers.get("etag")).toMatch(/^"/);
    expect(await response.json()).toEqual(screened.get("2026-06-12"));
    const missing = await call(`/v1/screened/${DAY_WITHOUT_SCREENED}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: `No screened file for ${DAY_WITHOUT_SCREENED}` });
    expect((await call("/v1/screened/2026-02-30")).status).toBe(422);
  });
});
