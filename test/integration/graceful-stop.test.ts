import { mkdtemp } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPicksServer } from "../helpers/processes.ts";
import { publishSampleDays } from "../helpers/published.ts";
import { verifyShortNote } from "../helpers/verify-note.ts";

/** A language model that takes its time: the request in flight when SIGTERM arrives. */
function slowModel(delayMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      const content = JSON.stringify({ verdict: "pass", reason: "Nothing misleading.", findings: [] });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));
    }, delayMs);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server }),
    ),
  );
}

describe("picks serve on SIGTERM", () => {
  let model: { url: string; server: Server };
  beforeAll(async () => {
    model = await slowModel(1500);
  });
  afterAll(() => model.server.close());

  it("finishes the request in flight, refuses new connections, and exits 0", async () => {
    const { publicDir } = await publishSampleDays();
    const server = await startPicksServer(publicDir, {
      STATE_DIR: await mkdtemp(join(tmpdir(), "picks-stop-")),
      VERIFY_LLM_BASE_URL: model.url,
      VERIFY_LLM_MODEL: "slow-model",
    });
    const inFlight = verifyShortNote(server.url, "kim@northwind-labs.com");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise<number | null>((resolve) =>
      server.child.once("exit", (code) => resolve(code)),
    );
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { semantic: { status: string } }).semantic.status).not.toBe("error");
    expect(await exited).toBe(0);
  });
});
