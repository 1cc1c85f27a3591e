import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PaperInputSchema } from "../../../server/mcp/paper-tool.ts";
import { PapersInputSchema } from "../../../server/mcp/papers-tool.ts";
import { StatsInputSchema } from "../../../server/mcp/stats-tool.ts";
import { advertisedInput, argumentsJsonSchema, parseToolArguments } from "../../../server/mcp/tool-input.ts";

const hints = { axis: (value: unknown) => `unknown axis \`${String(value)}\`; call labs_axes` };

describe("parseToolArguments: bad arguments become advice, not zod dumps", () => {
  it.each([
    [{ axis: "A10" }, "unknown axis `A10`; call labs_axes"],
    [{ limit: 0 }, "Expected `limit` to be a whole number from 1 to 5000, got `0`"],
    [{ days: 4000 }, "Expected `days` to be a whole number from 1 to 3650, got `4000`"],
    [{ days: 2.5 }, "Expected `days` to be a whole number from 1 to 3650, got `2.5`"],
    [{ min_score: "high" }, "Expected `min_score` to be a whole number from 0 to 45, got `high`"],
    [{ compact: "yes" }, "Expected `compact` to be true or false, got `yes`"],
    [{ cursor: "" }, "Expected `cursor` to be a non-empty string of at most 512 characters, got ``"],
    [
      { axes: "A1" },
      "unknown argument `axes`; labs_papers takes days, axis, min_score, min_reg_fit, limit, compact, scope, cursor",
    ],
  ])("%j -> %s", (raw, message) => {
    expect(parseToolArguments("labs_papers", PapersInputSchema, raw, hints)).toEqual({ ok: false, message });
  });

  it("reports every problem of one call, each once", () => {
    const parsed = parseToolArguments(
      "labs_papers",
      PapersInputSchema,
      { axis: "A0", limit: -1, x: 1 },
      hints,
    );
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.message.split("\n").sort()).toEqual([
      "Expected `limit` to be a whole number from 1 to 5000, got `-1`",
      "unknown argument `x`; labs_papers takes days, axis, min_score, min_reg_fit, limit, compact, scope, cursor",
      "unknown axis `A0`; call labs_axes",
    ]);
  });

  it("names a missing required argument and a tool that takes none", () => {
    expect(parseToolArguments("labs_paper", PaperInputSchema, {})).toEqual({
      ok: false,
      message: "missing argument `arxiv_id`: expected a non-empty string of at most 200 characters",
    });
    expect(parseToolArguments("labs_stats", StatsInputSchema, { days: 7 })).toEqual({
      ok: false,
      message: "unknown argument `days`; labs_stats takes no arguments",
    });
  });

  it("takes numbers and booleans sent as strings, and null as not set", () => {
    const parsed = parseToolArguments("labs_papers", PapersInputSchema, {
      days: "30",
      min_score: "12",
      compact: "false",
      axis: null,
      cursor: null,
    });
    expect(parsed).toEqual({
      ok: true,
      value: { days: 30, min_score: 12, min_reg_fit: 0, limit: 8, compact: false, scope: "picks" },
    });
  });

  it("applies the defaults: a page of 8, compact, the API's days and scores", () => {
    expect(parseToolArguments("labs_papers", PapersInputSchema, undefined)).toEqual({
      ok: true,
      value: { days: 7, min_score: 0, min_reg_fit: 0, limit: 8, compact: true, scope: "picks" },
    });
  });
});

describe("advertisedInput", () => {
  it("lets anything through the SDK but advertises the real schema", () => {
    const strict = z.strictObject({ id: z.string().min(1), n: z.int().min(1).max(3).default(2) });
    const loose = advertisedInput(strict);
    expect(loose.safeParse({ id: 5, extra: true }).success).toBe(true);
    const { $schema: _ignored, ...advertised } = z.toJSONSchema(loose, { io: "input", target: "draft-7" });
    expect(advertised).toEqual(argumentsJsonSchema(strict));
    expect(advertised).toMatchObject({
      required: ["id"],
      additionalProperties: false,
      properties: { n: { type: "integer", minimum: 1, maximum: 3, default: 2 } },
    });
  });
});
