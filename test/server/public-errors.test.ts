import { mkdtemp } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubmissionRecord, SubmissionView } from "../../pipeline/domain/submission.ts";
import type { VerifyResult } from "../../pipeline/domain/verify-request.ts";
import { DEFAULT_CONFIG } from "../../server/config.ts";
import { type AppContext, createContext } from "../../server/context.ts";
import { createSnapshotCache, type SnapshotCache } from "../../server/snapshots/snapshot-cache.ts";
import { createMemoryStore } from "../../server/store/memory-store.ts";
import type { SubmissionServiceOptions } from "../../server/submissions/submission-service.ts";
import { createSubmissionWorker } from "../../server/submissions/submission-worker.ts";
import { createSemanticChecker, SEMANTIC_ERROR_REASONS } from "../../server/verify/semantic.ts";
import { type Call, clientFor, postJson } from "../helpers/app-client.ts";
import { fixedScores, SUBMISSION, waitFor } from "./submissions/helpers.ts";
import { type FakeModel, json, startFakeModel } from "./verify/fake-model.ts";

// Anonymous callers get a stable code and a generic sentence when something behind the server fails;
// the model provider's body, internal addresses, ports and network error names go to the server's
// log (and, for submissions, the stored record), never into an answer. Over a real port.

const MESSAGE = {
  subject: "Notes from Tuesday",
  body: "Hi Priya, the notes from Tuesday are attached. Best, Sam",
  recipient: "priya@example.org",
};
const PROVIDER_ERROR =
  '{"error":{"message":"Incorrect API key provided: sk-proj-****wxyz. You must be a member of an organization: org-7Hq2Xb.","code":"invalid_api_key"}}';
/** What no public answer may contain: the provider's words, addresses, ports, error names. */
const LEAKS =
  /sk-proj|org-7Hq2Xb|invalid_api_key|ECONNREFUSED|ENOTFOUND|127\.0\.0\.1|::1|loopback|resolves to/;

let snapshots: SnapshotCache;
let model: FakeModel;
let closedPort: number;
beforeAll(async () => {
  snapshots = await createSnapshotCache({ publicDir: await mkdtemp(join(tmpdir(), "picks-errors-")) });
  model = await startFakeModel((_call, response) => json(response, 401, PROVIDER_ERROR));
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await model.close();
  snapshots.close();
});

async function serve(options: { modelUrl?: string; submissions?: Partial<SubmissionServiceOptions> }) {
  const logged: string[] = [];
  const log = (line: string) => {
    logged.push(line);
  };
  const context: AppContext = await createContext({
    version: "0.1.0",
    snapshots,
    store: await createMemoryStore(),
    config: { ...DEFAULT_CONFIG, verifyLimit: 100, submitLimit: 100 },
    log,
    semantic: createSemanticChecker(
      options.modelUrl ? { baseUrl: options.modelUrl, model: "review-small", apiKey: "sk-test" } : undefined,
      { log },
    ),
    submissions: { score: async () => fixedScores([3, 3, 3, 3, 3, 3, 3, 3, 3]), ...options.submissions },
  });
  const client = await clientFor("real port", context);
  return { ...client, context, logged };
}

const events = (logged: string[], event: string) =>
  logged
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === event);

describe("POST /v1/verify when the model fails", () => {
  it.each([
    ["answers 401 with the provider's account details", () => model.baseUrl, () => "HTTP 401"],
    [
      "refuses the connection",
      () => `http://127.0.0.1:${closedPort}/v1`,
      () => `ECONNREFUSED 127.0.0.1:${closedPort}`,
    ],
  ])("says model_unavailable when the model %s; the log has what happened", async (_name, modelUrl, detail) => {
    const { call, close, logged } = await serve({ modelUrl: modelUrl() });
    try {
      const response = await call("/v1/verify", postJson(MESSAGE));
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toMatch(LEAKS);
      expect(text).not.toContain(String(closedPort));
      expect((JSON.parse(text) as VerifyResult).semantic).toEqual({
        status: "error",
        code: "model_unavailable",
        model: "review-small",
        reason: SEMANTIC_ERROR_REASONS.model_unavailable,
        findings: [],
      });
      expect(events(logged, "verify_semantic_failed")).toEqual([
        {
          event: "verify_semantic_failed",
          code: "model_unavailable",
          model: "review-small",
          detail: expect.stringContaining(detail()),
        },
      ]);
    } finally {
      await close();
    }
  });
});

async function failedSubmission(call: Call, url: string): Promise<SubmissionView> {
  const accepted = await call("/v1/score/submit", postJson({ ...SUBMISSION, url }));
  expect(accepted.status).toBe(202);
  const { poll_url } = (await accepted.json()) as { poll_url: string };
  return waitFor(async () => {
    const view = (await (await call(poll_url)).json()) as SubmissionView;
    return view.status === "failed" ? view : null;
  });
}

describe("a submission whose page cannot be fetched", () => {
  it.each([
    [
      "a name that resolves to loopback",
      "http://intranet.runtime.example/about",
      { allowLoopbackFetch: false },
      "url_refused",
      "The url's host is not a public Internet address; only pages on public addresses are fetched. Submit a publicly reachable url.",
      "intranet.runtime.example resolves to 127.0.0.1, a loopback address",
    ],
    [
      "a name nothing resolves",
      "http://nothing.runtime.example/about",
      { allowLoopbackFetch: false },
      "dns_failed",
      "The url's host name could not be resolved; check the url.",
      "nothing.runtime.example could not be resolved (ENOTFOUND)",
    ],
    [
      "a port nobody listens on",
      "http://open.runtime.example:PORT/about",
      { allowLoopbackFetch: true },
      "unreachable",
      "The page could not be fetched; check that the url is reachable from the Internet.",
      "open.runtime.example:PORT: ECONNREFUSED",
    ],
  ])("fails %s with a code and a sentence; the detail is logged and stored", async (_name, rawUrl, settings, code, reason, rawDetail) => {
    const url = rawUrl.replace("PORT", String(closedPort));
    const detail = rawDetail.replace("PORT", String(closedPort));
    const lookup = async (host: string) => {
      if (host === "nothing.runtime.example")
        throw Object.assign(new Error(`no ${host}`), { code: "ENOTFOUND" });
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const { call, close, context, logged } = await serve({
      submissions: { lookup, settings: { ...settings, pollIntervalMs: 50 } },
    });
    const worker = createSubmissionWorker(context.submissions);
    await worker.start();
    try {
      const view = await failedSubmission(call, url);
      expect(view.failure).toEqual({ code, reason });
      const { url: _submitted, ...rest } = view;
      expect(JSON.stringify(rest)).not.toMatch(LEAKS);
      expect(JSON.stringify(rest)).not.toContain(String(closedPort));
      const stored = await context.store.getItem<SubmissionRecord>(`submission:${view.submission_id}`);
      expect(stored?.failure).toEqual({ code, reason, detail: expect.stringContaining(detail) });
      expect(events(logged, "submission_failed")).toEqual([
        {
          event: "submission_failed",
          submission_id: view.submission_id,
          code,
          detail: expect.stringContaining(detail),
        },
      ]);
    } finally {
      await worker.stop();
      await close();
    }
  });
});
