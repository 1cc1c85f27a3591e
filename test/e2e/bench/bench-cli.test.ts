import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runPicks } from "../../helpers/processes.ts";
import { curateSampleArgs } from "../../helpers/published.ts";

// The operator's side as real processes on one embedded store: bench keys bound to a firm, the firm
// views `picks curate` stores after publishing, and `picks bench list|show|note`.

let env: NodeJS.ProcessEnv;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "picks-bench-cli-"));
  env = { ...process.env, STATE_DIR: join(dir, "state"), STATE_STORE: "", REDIS_URL: "" };
});

const issue = (...extra: string[]) =>
  runPicks(["keys", "issue", "--email", "ops@example.org", "--label", "risk desk", ...extra], env);

describe("picks keys issue --tier bench", () => {
  it.each([
    [["--tier", "bench"], "Expected `--firm <slug>` with `--tier bench`"],
    [["--tier", "team", "--firm", "acme"], "`--firm` applies only to `--tier bench`, not `team`"],
    [["--tier", "bench", "--firm", "Acme Bank"], "Expected `--firm` to be a slug"],
    [["--tier", "bench", "--firm", "a:b"], "Expected `--firm` to be a slug"],
  ])("%j is refused with exit 2", async (args, message) => {
    const result = await issue(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("issues a firm's keys, curate stores the firm's views, and bench list, show and note report them", async () => {
    const first = await issue("--tier", "bench", "--firm", "acme-bank", "--json");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      tier: "bench",
      firm: "acme-bank",
      limits: { calls_per_window: null },
    });
    expect((await issue("--tier", "bench", "--firm", "acme-bank")).code).toBe(0);
    const listed = await runPicks(["keys", "list"], env);
    expect(listed.stdout.match(/firm acme-bank/g)).toHaveLength(2);

    const out = join(dir, "public");
    const curated = await runPicks(curateSampleArgs(out, join(dir, "runs"), "2026-11-19"), env);
    expect(curated.code).toBe(0);
    expect(curated.stdout).toContain("bench: views of 1 firm(s) stored");

    const firms = await runPicks(["bench", "list"], env);
    expect(firms.stdout).toMatch(/^acme-bank {2}0 papers, 0 authors, 0 terms {2}rubric v0$/m);
    expect((await runPicks(["bench", "show", "other-firm"], env)).code).toBe(2);

    const notes = join(dir, "notes");
    const built = await runPicks(
      ["bench", "note", "--firm", "acme-bank", "--week", "2026-W47", "--out", notes],
      env,
    );
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toMatch(/^acme-bank 2026-W47: 1 days, \d+ picks/m);
    const markdown = await readFile(join(notes, "acme-bank-2026-W47.md"), "utf8");
    expect(markdown).toContain("## Firm picks");
    expect(await readFile(join(notes, "acme-bank-2026-W47.html"), "utf8")).toContain("<!doctype html>");
    const shown = await runPicks(["bench", "show", "acme-bank"], env);
    expect(shown.stdout).toContain("notes: 2026-W47");
    expect((await runPicks(["bench", "note", "--week", "2026-47"], env)).code).toBe(2);
  }, 90_000);
});
