import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { HttpCounts } from "../domain/run-record.ts";
import type { HttpClient, HttpRequest, HttpResponse } from "../http.ts";
import { HttpError } from "../http-rules.ts";
import { projectPath } from "../project-root.ts";
import { type CitationLookup, createCitationLookup } from "./citation-lookup.ts";

// The sample days' citation figures. The project keeps Semantic Scholar batch answers for the sample's
// papers, written for the demonstration, and replays them to the same Semantic Scholar client and
// lookup a live run uses: the batch request is built, the answer parsed and checked, the links between
// picks found and the figures published by the real code. Only the network is replaced, so `npm start`
// shows the citation graph offline, and every figure carries `illustrative` so nobody takes it for a lookup.

export const SAMPLE_CITATIONS_FILE = projectPath("data", "sample", "citations", "semantic-scholar.json");

const UPSTREAM = "semantic_scholar";

export const CitationRecordingSchema = z.object({
  about: z.string(),
  written_at: z.iso.date(),
  note: z.string().min(1),
  /** Semantic Scholar's paper object per versionless arXiv id, as `POST /paper/batch` answers it. */
  answers: z.record(z.string(), z.unknown()),
});
export type CitationRecording = z.infer<typeof CitationRecordingSchema>;

const BatchRequestSchema = z.object({ ids: z.array(z.string()) });

function refused(request: HttpRequest, why: string): HttpError {
  return new HttpError(`the recording cannot answer ${request.method ?? "GET"} ${request.url}: ${why}`, {
    kind: "status",
    status: 404,
    upstream: request.upstream ?? UPSTREAM,
    attempts: 1,
  });
}

/**
 * An HttpClient that answers Semantic Scholar's batch endpoint from a recording, in the request's
 * order with `null` for an id it does not hold, as the index does; anything else is a 404.
 */
export function createReplayClient(recording: CitationRecording): HttpClient {
  let requests = 0;
  let failures = 0;
  return {
    async send(request): Promise<HttpResponse> {
      requests += 1;
      if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/paper/batch")) {
        failures += 1;
        throw refused(request, "only the paper batch is recorded");
      }
      let body: unknown;
      try {
        body = JSON.parse(request.body ?? "");
      } catch {
        body = undefined;
      }
      const parsed = BatchRequestSchema.safeParse(body);
      if (!parsed.success) {
        failures += 1;
        throw refused(request, "the body is not a batch of ids");
      }
      const answer = parsed.data.ids.map((id) => recording.answers[id.replace(/^ARXIV:/i, "")] ?? null);
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        text: JSON.stringify(answer),
        attempts: 1,
      };
    },
    counts(): HttpCounts {
      const counts = { requests, retries: 0, failures };
      return {
        ...counts,
        politeness_wait_ms: 0,
        backoff_wait_ms: 0,
        by_upstream: requests > 0 ? { [UPSTREAM]: counts } : {},
      };
    },
    circuits: () => ({}),
    close: async () => {},
  };
}

/** Reads and checks a recording file; throws naming the file when it is not one. */
export async function readCitationRecording(file = SAMPLE_CITATIONS_FILE): Promise<CitationRecording> {
  const checked = CitationRecordingSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${file} is not a citation recording: /${issue?.path.join("/")} ${issue?.message}`);
  }
  return checked.data;
}

/**
 * The citation lookup of the sample days: the recording replayed through the Semantic Scholar client,
 * every figure dated on the day the answers were written and marked `illustrative`.
 */
export function recordedCitationLookup(recording: CitationRecording): CitationLookup {
  return createCitationLookup({
    semanticScholar: { client: createReplayClient(recording) },
    now: () => new Date(`${recording.written_at}T00:00:00Z`),
    illustrative: { written_at: recording.written_at, note: recording.note },
  });
}
