import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SubmissionRecord, SubmissionView } from "../../../pipeline/domain/submission.ts";
import type { AppContext } from "../../../server/context.ts";
import {
  createSubmissionWorker,
  type SubmissionWorker,
} from "../../../server/submissions/submission-worker.ts";
import { type Call, clientFor, MODES, postJson } from "../../helpers/app-client.ts";
import { AXES_IN_ORDER } from "../../helpers/rubric.ts";
import {
  ABOUT_PAGE,
  type PageServer,
  SUBMISSION,
  startPageServer,
  submissionContext,
  waitFor,
} from "./helpers.ts";

let pages: PageServer;
beforeAll(async () => {
  pages = await startPageServer((req, res) => {
    switch (req.url) {
      case "/about":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ABOUT_PAGE);
        return;
      case "/paper.pdf":
        res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.7 binary");
        return;
      case "/garbage":
        res.writeHead(200, { "content-type": "text/html" }).end(Buffer.from([0, 1, 2, 255, 254, 0, 7, 8, 9]));
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    }
  });
});
afterAll(() => pages.close());

async function settled(call: Call, id: number): Promise<{ view: SubmissionView; raw: string }> {
  return waitFor(
    async () => {
      const response = await call(`/v1/score/submission/${id}`);
      const raw = await response.text();
      const view = JSON.parse(raw) as SubmissionView;
      return view.status === "scored" || view.status === "failed" ? { view, raw } : null;
    },
    10_000,
    `submission ${id} to finish`,
  );
}

async function submit(call: Call, body: Record<string, unknown>, ip = "198.51.100.7") {
  const response = await call("/v1/score/submit", postJson(body, { ip }));
  return { response, body: (await response.json()) as Record<string, unknown> };
}

describe.each(MODES)("submissions over HTTP (%s)", (mode) => {
  let call: Call;
  let close: () => Promise<void>;
  let worker: SubmissionWorker;
  beforeAll(async () => {
    const context = await submissionContext({ config: { submitLimit: 100 } });
    ({ call, close } = await clientFor(mode, context));
    worker = createSubmissionWorker(context.submissions);
    await worker.start();
  });
  afterAll(async () => {
    await worker.stop();
    await close();
  });

  it("takes a submission from queued to scored against a page on loopback", async () => {
    const url = `${pages.url}/about`;
    const { response, body } = await submit(call, { ...SUBMISSION, url });
    expect(response.status).toBe(202);
    expect(body).toMatchObject({ submission_id: 1, status: "queued", poll_url: "/v1/score/submission/1" });
    expect(response.headers.get("location")).toBe("/v1/score/submission/1");
    expect(response.headers.get("ratelimit-policy")).toBe('"submit";q=100;w=86400');

    const { view, raw } = await settled(call, 1);
    expect(view).toMatchObject({
      submission_id: 1,
      status: "scored",
      runtime_name: "Harbor",
      url,
      attempts: 1,
      basis: "description_and_page",
      note: null,
      failure: null,
      page: { final_url: url, http_status: 200, used: true, redirects: 0 },
    });
    expect(view.history.map((step) => step.status)).toEqual(["queued", "fetching", "scoring", "scored"]);
    const times = view.history.map((step) => Date.parse(step.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(view.scored_at).toBe(view.history.at(-1)?.at);
    expect(view.scores?.total).toBeGreaterThan(0);
    // The page's text, not just the description, produced evidence.
    const evidence = Object.values(view.scores?.axes ?? {}).flatMap((axis) =>
      axis.evidence.map((e) => e.text),
    );
    expect(evidence.join(" ")).toMatch(/provenance|Model Context Protocol|versioned store/);
    expect(raw).not.toContain("contact_email");
    expect(raw).not.toContain(SUBMISSION.contact_email);
    expect(pages.requests.at(-1)?.headers["user-agent"]).toMatch(/^Research-Picks-submission-fetcher/);
  });

  it.each([
    ["/paper.pdf", "it is application/pdf, not an HTML or text page"],
    ["/garbage", "its bytes are not readable text"],
  ])("scores %s on the description alone and says so", async (path, why) => {
    const { body } = await submit(call, { ...SUBMISSION, url: `${pages.url}${path}` });
    const { view } = await settled(call, body.submission_id as number);
    expect(view).toMatchObject({ status: "scored", basis: "description", page: { used: false } });
    expect(view.note).toContain("Scored on the description alone");
    expect(view.note).toContain(why);
  });

  it("fails a page that answers 404 with a reason", async () => {
    const { body } = await submit(call, { ...SUBMISSION, url: `${pages.url}/gone` });
    const { view } = await settled(call, body.submission_id as number);
    expect(view).toMatchObject({ status: "failed", scores: null, scored_at: null });
    expect(view.failure).toEqual({
      code: "http_status",
      reason: "The page answered HTTP 404; submit a url that answers 200 without a login.",
    });
    expect(view.history.map((step) => step.status)).toEqual(["queued", "fetching", "failed"]);
  });

  it("lists scored submissions on the leaderboard, best first, and honours limit", async () => {
    const board = (await (await call("/v1/score/leaderboard")).json()) as {
      limit: number;
      total: number;
      entries: Array<Record<string, unknown>>;
    };
    expect(board.limit).toBe(25);
    expect(board.total).toBe(3);
    expect(board.entries.map((entry) => entry.rank)).toEqual([1, 2, 3]);
    const totals = board.entries.map((entry) => entry.total as number);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    expect(board.entries[0]).toMatchObject({
      submission_id: 1,
      runtime_name: "Harbor",
      vendor: "Harbor Labs",
    });
    expect(Object.keys(board.entries[0]?.axes as object)).toEqual(AXES_IN_ORDER);
    expect(JSON.stringify(board)).not.toContain(SUBMISSION.contact_email);
    const one = (await (await call("/v1/score/leaderboard?limit=1")).json()) as { entries: unknown[] };
    expect(one.entries).toEqual(board.entries.slice(0, 1));
  });

  it.each([
    [
      "0",
      {
        type: "greater_than_equal",
        msg: "Input should be greater than or equal to 1",
        input: "0",
        ctx: { ge: 1 },
      },
    ],
    [
      "101",
      {
        type: "less_than_equal",
        msg: "Input should be less than or equal to 100",
        input: "101",
        ctx: { le: 100 },
      },
    ],
    [
      "ten",
      {
        type: "int_parsing",
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "ten",
      },
    ],
  ])("refuses leaderboard limit=%s", async (limit, issue) => {
    const response = await call(`/v1/score/leaderboard?limit=${limit}`);
    expect(response.status).toBe(422);
    const { type, msg, input, ctx } = issue as Record<string, unknown>;
    const expected =
      ctx === undefined
        ? { type, loc: ["query", "limit"], msg, input }
        : { type, loc: ["query", "limit"], msg, input, ctx };
    expect(await response.text()).toBe(JSON.stringify({ detail: [expected] }));
  });

  it("answers a submission id that is not an integer with 422 and an unknown one with 404", async () => {
    const bad = await call("/v1/score/submission/abc");
    expect(bad.status).toBe(422);
    expect(await bad.text()).toBe(
      JSON.stringify({
        detail: [
          {
            type: "int_parsing",
            loc: ["path", "submission_id"],
            msg: "Input should be a valid integer, unable to parse string as an integer",
            input: "abc",
          },
        ],
      }),
    );
    for (const id of ["999", "0", "-3", "99999999999999999999"]) {
      const missing = await call(`/v1/score/submission/${id}`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ detail: `No submission with id ${id}` });
    }
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const response = await call("/v1/score/submit");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect((await call("/v1/score/leaderboard", { method: "POST" })).headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("POST /v1/score/submit refusals", () => {
  let context: AppContext;
  let call: Call;
  beforeAll(async () => {
    context = await submissionContext();
    ({ call } = await clientFor("in-process", context));
  });

  it.each([
    [
      "a url that is not http(s)",
      { ...SUBMISSION, url: "ftp://harbor.example/about" },
      [
        {
          type: "string_pattern_mismatch",
          loc: ["body", "url"],
          msg: "String should match pattern '^https?://\\S+$'",
          input: "ftp://harbor.example/about",
          ctx: { pattern: "^https?://\\S+$" },
        },
      ],
    ],
    [
      "a short description and a short url",
      { ...SUBMISSION, url: "http://", description: "Too short." },
      [
        {
          type: "string_too_short",
          loc: ["body", "url"],
          msg: "String should have at least 8 characters",
          input: "http://",
          ctx: { min_length: 8 },
        },
        {
          type: "string_too_short",
          loc: ["body", "description"],
          msg: "String should have at least 40 characters",
          input: "Too short.",
          ctx: { min_length: 40 },
        },
      ],
    ],
    [
      "missing fields",
      { runtime_name: "Harbor", url: "https://harbor.example/" },
      ["vendor", "description", "contact_email"].map((field) => ({
        type: "missing",
        loc: ["body", field],
        msg: "Field required",
        input: { runtime_name: "Harbor", url: "https://harbor.example/" },
      })),
    ],
    [
      "a name too long and a number for a string",
      { ...SUBMISSION, url: "https://harbor.example/", runtime_name: "x".repeat(81), vendor: 42 },
      [
        {
          type: "string_too_long",
          loc: ["body", "runtime_name"],
          msg: "String should have at most 80 characters",
          input: "x".repeat(81),
          ctx: { max_length: 80 },
        },
        { type: "string_type", loc: ["body", "vendor"], msg: "Input should be a valid string", input: 42 },
      ],
    ],
    ["no body", null, [{ type: "missing", loc: ["body"], msg: "Field required", input: null }]],
  ])("answers %s with FastAPI's 422, spending nothing", async (_name, body, detail) => {
    const response = await call("/v1/score/submit", postJson(body, { ip: "203.0.113.9" }));
    expect(response.status).toBe(422);
    expect(await response.text()).toBe(JSON.stringify({ detail }));
  });

  it("accepts 3 submissions from one address in 24 hours and refuses the 4th with Retry-After", async () => {
    const url = "https://harbor.example/about";
    for (let i = 1; i <= 3; i++) {
      const { response } = await submit(call, { ...SUBMISSION, url }, "203.0.113.9");
      expect(response.status).toBe(202);
    }
    const { response, body } = await submit(call, { ...SUBMISSION, url }, "203.0.113.9");
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(body.detail).toMatch(/already made 3 submissions in the last 24 hours; try again after \d{4}-/);
    // The refused one took no id; another address is still welcome.
    const other = await submit(call, { ...SUBMISSION, url }, "203.0.113.10");
    expect(other.body).toMatchObject({ submission_id: 4, status: "queued" });
  });

  it("fails a loopback url by default, and no connection reaches the page server", async () => {
    const strict = await submissionContext({ submissions: { settings: { allowLoopbackFetch: false } } });
    const worker = createSubmissionWorker(strict.submissions);
    await worker.start();
    try {
      const before = pages.connections();
      const { call: strictCall } = await clientFor("in-process", strict);
      await submit(strictCall, { ...SUBMISSION, url: `${pages.url}/about` });
      const { view } = await settled(strictCall, 1);
      expect(view.status).toBe("failed");
      expect(view.failure?.code).toBe("url_refused");
      expect(view.failure).toEqual({
        code: "url_refused",
        reason: expect.stringContaining("The url's host is not a public Internet address"),
      });
      // The operator's detail is in the store's record, never in the answer.
      expect(JSON.stringify(view)).not.toMatch(/loopback|"detail"/);
      const stored = await strict.store.getItem<SubmissionRecord>("submission:1");
      expect(stored?.failure?.detail).toContain("127.0.0.1 is a loopback address");
      expect(pages.connections()).toBe(before);
    } finally {
      await worker.stop();
    }
  });
});
