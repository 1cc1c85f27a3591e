import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTING_250 } from "../helpers/fixtures.ts";
import { runPicks, type Started, startPicksServer } from "../helpers/processes.ts";

describe("picks curate, then picks serve, over a real port", () => {
  let root: string;
  let server: Started;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "picks-e2e-"));
  });
  afterAll(() => server?.stop());

  it("curates the real 250-candidate day into the folder and serves it", async () => {
    const out = join(root, "public");
    const result = await runPicks([
      "curate",
      "--source",
      `file:${LISTING_250}`,
      "--out",
      out,
      "--runs",
      join(root, "runs"),
      "--json",
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.date).toBe("2026-06-12");
    expect(summary.counts).toMatchObject({ screened: 250, duplicates: 64 });
    expect(summary.picks.length).toBeGreaterThan(0);
    expect((await readdir(join(out, "v1", "daily"))).sort()).toEqual(["2026-06-12.json", "latest.json"]);

    server = await startPicksServer(out);
    const response = await fetch(`${server.url}/v1/daily/2026-06-12`);
    expect(response.status).toBe(200);
    const snapshot = (await response.json()) as { picks: Array<{ arxiv_id: string }> };
    expect(snapshot.picks.map((p: { arxiv_id: string }) => p.arxiv_id)).toEqual(
      summary.picks.map((p: { arxiv_id: string }) => p.arxiv_id),
    );
    const record = JSON.parse(await readFile(join(root, "runs", "2026-06-12.json"), "utf8"));
    expect(record.candidates).toHaveLength(250);
  });

  it("sees a new day published while it runs, without a restart", async () => {
    const out = join(root, "public");
    const result = await runPicks([
      "curate",
      "--source",
      `file:${LISTING_250}`,
      "--date",
      "2026-06-15",
      "--out",
      out,
      "--runs",
      join(root, "runs"),
    ]);
    expect(result.code).toBe(0);
    await expect
      .poll(
        async () =>
          (await fetch(`${server.url}/v1/daily/latest`)).json().then((s) => (s as { date: string }).date),
        {
          timeout: 5000,
        },
      )
      .toBe("2026-06-15");
  });

  it.each([
    [["curate", "--date", "2026-13-01"], 2, "Expected `--date` to be YYYY-MM-DD, got `2026-13-01`"],
    [
      ["curate", "--source", "arxiv:cs.AI"],
      2,
      "Expected `--source` to be `arxiv`, `sample` or `file:PATH`, got `arxiv:cs.AI`",
    ],
    [
      ["curate", "--source", "file:/nonexistent.jsonl"],
      1,
      "cannot read /nonexistent.jsonl: no such file; nothing was published",
    ],
    [["serve", "--port", "http"], 2, "Expected `--port` to be a whole number from 0 to 65535, got `http`"],
    [["frobnicate"], 2, "unknown command 'frobnicate'"],
  ])("picks %j exits %i with a clear message", async (args, code, message) => {
    const out = join(root, "untouched");
    const result = await runPicks([...args, ...(args[0] === "curate" ? ["--out", out] : [])]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    await expect(readdir(out)).rejects.toThrow();
  });
});
