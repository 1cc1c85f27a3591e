import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runPicks } from "../helpers/processes.ts";

// The program on a Node.js it does not support says so in one line and exits 1, before it loads any
// of its code; the versions it accepts are those package.json's `engines` names.

const run = (version: string) =>
  runPicks(["--version"], { ...process.env, PICKS_TEST_NODE_VERSION: version });

describe("the Node.js versions picks runs on", () => {
  it.each([
    "16.20.2",
    "18.20.4",
    "20.18.1",
    "21.7.3",
    "22.11.0",
    "23.11.0",
    "25.2.1",
    "27.0.0",
  ])("refuses %s in one line, exit 1", async (version) => {
    const done = await run(version);
    expect(done.code).toBe(1);
    expect(done.stdout).toBe("");
    expect(done.stderr).toBe(
      `picks: Node.js ${version} is not supported; use Node.js 20.19+, 22.12+, 24 or 26 (26 is the active LTS)\n`,
    );
  });

  it.each(["20.19.0", "22.12.0", "24.11.1", "26.10.0"])("runs on %s", async (version) => {
    const done = await run(version);
    expect(done.stderr).toBe("");
    expect(done.stdout.trim()).toBe("0.1.0");
    expect(done.code).toBe(0);
  });

  it("runs on this Node.js, which package.json's engines names", async () => {
    const engines = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).engines;
    expect(engines.node).toBe("^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0");
    expect((await runPicks(["--version"])).code).toBe(0);
  });
});
