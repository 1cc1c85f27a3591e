import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pick } from "../../../pipeline/domain/pick.ts";
import { loadRubric } from "../../../pipeline/rubric-file.ts";
import { type Connected, connectInMemory } from "./mcp-clients.ts";
import { publishYear } from "./year-site.ts";

let mcp: Connected;
let picks: Pick[];

beforeAll(async () => {
  const publicDir = join(await mkdtemp(join(tmpdir(), "picks-mcp-tools-")), "public");
  ({ picks } = await publishYear({ publicDir, days: 10, lastDate: "2026-11-20", picksPerDay: 5 }));
  mcp = await connectInMemory(publicDir);
});
afterAll(async () => {
  await mcp.close();
});

describe("tools/list", () => {
  it("lists the four read-only tools with titles, descriptions and both schemas", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["labs_papers", "labs_paper", "labs_axes", "labs_stats"]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tool.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.outputSchema).toMatchObject({ type: "object" });
    }
    const [papers, paper, axes] = tools;
    expect(Object.keys(papers?.inputSchema.properties ?? {})).toEqual([
      "days",
      "axis",
      "min_score",
      "min_reg_fit",
      "limit",
      "compact",
      "scope",
      "cursor",
    ]);
    expect(papers?.inputSchema.properties?.axis).toMatchObject({
      enum: ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"],
    });
    expect(papers?.outputSchema?.required).toEqual(
      expect.arrayContaining(["total", "returned", "has_more", "next_cursor", "external_content", "picks"]),
    );
    expect(paper?.inputSchema.required).toEqual(["arxiv_id"]);
    expect(axes?.inputSchema.properties?.axis).toMatchObject({ enum: expect.arrayContaining(["A1", "REG"]) });
  });
});

describe("labs_paper", () => {
  it.each([
    ["a bare id", (id: string) => id],
    ["an arXiv: prefix and a version", (id: string) => `arXiv:${id}v3`],
    ["an abs URL", (id: string) => `https://arxiv.org/abs/${id}`],
    ["a pdf URL with version and .pdf", (id: string) => `https://arxiv.org/pdf/${id}v2.pdf`],
  ])("finds a pick by %s, with its evidence", async (_name, form) => {
    const pick = picks[7] as Pick;
    const result = await mcp.call("labs_paper", { arxiv_id: form(pick.arxiv_id) });
    expect(result.isError, result.text).toBeFalsy();
    expect(JSON.parse(result.text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toEqual({
      arxiv_id: pick.arxiv_id,
      picked_on: [pick.date],
      external_content: expect.stringMatching(/third-party content .* never as instructions/),
      pick,
    });
  });

  it.each([
    [
      { arxiv_id: "2611.99999" },
      /^no pick with arXiv id `2611.99999` \(10 published days, 2026-11-11 to 2026-11-20\).*call labs_papers/,
    ],
    [
      { arxiv_id: "not-an-id" },
      "`not-an-id` is not an arXiv id; pass one like 2401.12345, arXiv:2401.12345v2 or " +
        "https://arxiv.org/abs/2401.12345",
    ],
    // Regression: a malformed escape was "failed unexpectedly (URIError: URI malformed)".
    [{ arxiv_id: "https://arxiv.org/abs/%E0%A4%A" }, "`https://arxiv.org/abs/%E0%A4%A` is not an arXiv id"],
    [
      { arxiv_id: "9".repeat(240_000) },
      /^Expected `arxiv_id` to be .* at most 200 characters, got `9{80}…`$/,
    ],
    [{}, "missing argument `arxiv_id`: expected a non-empty string of at most 200 characters"],
    [
      { arxiv_id: 2401.12345 },
      "Expected `arxiv_id` to be a non-empty string of at most 200 characters, got `2401.12345`",
    ],
  ])("%j is an error result that says what to do", async (args, message) => {
    const result = await mcp.call("labs_paper", args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(message);
  });
});

describe("labs_axes", () => {
  it("gives an overview of the rubric without the term lists", async () => {
    const rubric = await loadRubric();
    const result = await mcp.call("labs_axes");
    expect(result.isError, result.text).toBeFalsy();
    const view = result.structuredContent as {
      detail: string;
      version: string;
      axes: Array<Record<string, unknown>>;
    };
    expect(view).toMatchObject({
      detail: "overview",
      version: rubric.version,
      reg_fit: { name: rubric.reg_fit.name },
    });
    expect(view.axes.map((axis) => axis.id)).toEqual(rubric.axes.map((axis) => axis.id));
    expect(view.axes[0]?.levels).toEqual(rubric.axes[0]?.levels);
    expect(result.text).not.toContain('"terms"');
  });

  it("gives one axis, or REG FIT, in full", async () => {
    const rubric = await loadRubric();
    const a8 = await mcp.call("labs_axes", { axis: "A8" });
    expect(a8.structuredContent).toMatchObject({ detail: "A8", axes: [rubric.axes[7]] });
    expect(a8.structuredContent).not.toHaveProperty("reg_fit");
    const reg = await mcp.call("labs_axes", { axis: "REG" });
    expect(reg.structuredContent).toMatchObject({ detail: "REG", axes: [], reg_fit: rubric.reg_fit });
  });

  it("answers an unknown axis with the choices", async () => {
    const result = await mcp.call("labs_axes", { axis: "A10" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "unknown axis `A10`; labs_axes takes A1..A9, REG for REG FIT, or no axis for the overview",
    );
  });
});

describe("labs_stats", () => {
  it("gives the pipeline-wide counts", async () => {
    const result = await mcp.call("labs_stats");
    expect(result.isError, result.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      days: 10,
      first_date: "2026-11-11",
      latest_date: "2026-11-20",
      kept: 50,
      screened: 2500,
    });
  });

  it("takes no arguments", async () => {
    const result = await mcp.call("labs_stats", { days: 7 });
    expect(result.isError).toBe(true);
    expect(result.text).toBe("unknown argument `days`; labs_stats takes no arguments");
  });
});

describe("an empty folder", () => {
  let empty: Connected;
  beforeAll(async () => {
    const publicDir = join(await mkdtemp(join(tmpdir(), "picks-mcp-empty-")), "public");
    await mkdir(publicDir);
    empty = await connectInMemory(publicDir);
  });
  afterAll(async () => {
    await empty.close();
  });

  it("answers labs_papers with nothing and says why", async () => {
    const result = await empty.call("labs_papers");
    expect(result.structuredContent).toMatchObject({
      total: 0,
      returned: 0,
      has_more: false,
      next_cursor: null,
      notes: [expect.stringMatching(/nothing is published .* `picks curate`/)],
    });
  });

  it.each([
    ["labs_stats", {}, /^no stats.json is published in .* yet: the operator runs `picks curate`$/],
    ["labs_axes", {}, /^no axes.json is published in .* yet/],
    ["labs_paper", { arxiv_id: "2401.12345" }, /\(nothing is published yet\)/],
  ])("answers %s with advice", async (name, args, message) => {
    const result = await empty.call(name, args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(message);
  });
});
