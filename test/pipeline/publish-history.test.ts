import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readDailySnapshots } from "../../pipeline/publish.ts";

const execFileAsync = promisify(execFile);

async function site() {
  const root = await mkdtemp(join(tmpdir(), "picks-history-"));
  return { root, outDir: join(root, "public"), runsDir: join(root, "runs") };
}

describe("the published history is never rebuilt from today alone (regression: issue 15, item 5)", () => {
  it("treats a missing daily folder as no days yet", async () => {
    const { root } = await site();
    await expect(readDailySnapshots(join(root, "nowhere"))).resolves.toEqual({
      days: [],
      bytes: new Map(),
      unreadable: [],
    });
  });

  it("refuses any other failure to read the folder (a file where the folder should be)", async () => {
    const { root } = await site();
    const blocked = join(root, "blocked");
    await writeFile(blocked, "not a folder");
    await expect(readDailySnapshots(blocked)).rejects.toThrow(/Cannot read the published days in .*blocked/);
  });

  it("fails the run and leaves stats.json and recent.json as they were when the folder cannot be listed", async () => {
    const child = fileURLToPath(new URL("./unreadable-history-child.ts", import.meta.url));
    const node = [process.execPath, "--import", "tsx", child];
    // Root reads a folder whatever its mode: the child runs as an ordinary user.
    const command = process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--", ...node] : node;
    const { stdout } = await execFileAsync(command[0] as string, command.slice(1), {
      env: { ...process.env, HOME: tmpdir() },
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    });
    const outcome = JSON.parse(stdout) as { error: string | null; unchanged: boolean; files: string[] };
    expect(outcome.error).toMatch(/Cannot read the published days in .*EACCES/);
    expect(outcome.unchanged).toBe(true);
    expect(outcome.files).toEqual(["2026-11-18.json", "latest.json"]);
  });
});
