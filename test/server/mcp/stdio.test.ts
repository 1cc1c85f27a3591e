import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DailySnapshot } from "../../../pipeline/domain/snapshot.ts";
import { publishFixtureDays } from "../../helpers/published.ts";
import { curateDay } from "./curate-day.ts";
import { type Connected, connectStdio, PICKS } from "./mcp-clients.ts";

let site: { publicDir: string; runsDir: string };
let day: DailySnapshot;

beforeAll(async () => {
  site = await publishFixtureDays();
  day = JSON.parse(await readFile(join(site.publicDir, "v1", "daily", "2026-06-12.json"), "utf8"));
});

describe("`picks mcp` as a child process, through the SDK's stdio client", () => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connectStdio(site.publicDir);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it("lists the four tools", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["labs_papers", "labs_paper", "labs_axes", "labs_stats"]);
  });

  it("answers each tool with structured content and the same JSON as text", async () => {
    const first = day.picks[0];
    expect(first).toBeDefined();
    for (const [name, args] of [
      ["labs_papers", { days: 30 }],
      ["labs_paper", { arxiv_id: `https://arxiv.org/abs/${first?.arxiv_id}v1` }],
      ["labs_axes", { axis: "A1" }],
      ["labs_stats", {}],
    ] as const) {
      const result = await mcp.call(name, args);
      expect(result.isError, `${name}: ${result.text}`).toBeFalsy();
      expect(JSON.parse(result.text)).toEqual(result.structuredContent);
    }
    const paper = await mcp.call("labs_paper", { arxiv_id: first?.arxiv_id ?? "" });
    expect((paper.structuredContent as { pick: unknown }).pick).toEqual(first);
  });

  it("answers bad arguments with an error result, and keeps serving", async () => {
    const result = await mcp.call("labs_papers", { axis: "A10" });
    expect(result).toMatchObject({
      isError: true,
      text: "unknown axis `A10`; call labs_axes to see the nine axes A1..A9",
    });
    expect((await mcp.call("labs_stats")).isError).toBeFalsy();
  });

  it("sees a day curated while it runs on the next call", async () => {
    const { snapshot } = await curateDay(site.publicDir, site.runsDir, "2026-06-27");
    const result = await mcp.call("labs_papers", { days: 1 });
    expect(result.structuredContent).toMatchObject({
      applied: { to: "2026-06-27" },
      total: snapshot.picks.length,
    });
  });

  it("logs to stderr", () => {
    expect(mcp.stderr()).toMatch(/^picks mcp: serving 2 days from .*\(latest 2026-06-25\)$/m);
  });
});

/** Runs `picks mcp` with raw lines on stdin, closes stdin, and collects what comes out. */
function runRaw(
  args: string[],
  lines: object[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [PICKS, "mcp", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("stdout carries JSON-RPC only", () => {
  it("answers each request with one JSON-RPC line, logs on stderr, exits when stdin closes", async () => {
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "0" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "labs_papers", arguments: { days: 3650, compact: false } },
      },
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "labs_paper", arguments: { arxiv_id: "nope" } },
      },
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "labs_nothing", arguments: {} } },
      { jsonrpc: "2.0", id: 6, method: "no/such/method" },
    ];
    const { code, stdout, stderr } = await runRaw(["--data", site.publicDir], requests);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines.pop()).toBe("");
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number });
    expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((message) => message.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(stderr).toMatch(/^picks mcp: serving/m);
  });

  it("refuses a --data folder that does not exist, on stderr with exit code 2", async () => {
    const { code, stdout, stderr } = await runRaw(["--data", "/no/such/folder"], []);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/Expected `--data` to be a folder holding v1\/, got `\/no\/such\/folder`/);
  });
});
