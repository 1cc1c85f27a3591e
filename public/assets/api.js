// Talking to the service. The snapshots exist twice: as API paths (`v1/daily/latest`, answered by
// `picks serve` or a CDN with the rewrite rules) and as plain files (`v1/daily/latest.json`, on any
// static host). The page asks for the API path first and falls back to the file once; whichever answers
// first is used from then on. Paths are relative, so the site also works from a sub-folder.

let snapshotMode = null; // null until known, then "api" or "files"

export async function request(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    return { status: 0, ok: false, json: false, body: null, headers: new Headers() };
  }
  const type = response.headers.get("content-type") ?? "";
  let body = null;
  let json = false;
  if (/\bjson\b/.test(type)) {
    try {
      body = await response.json();
      json = true;
    } catch {
      json = false;
    }
  }
  return { status: response.status, ok: response.ok && json, json, body, headers: response.headers };
}

/** An answer that was not what the page asked for, with everything needed to explain it. */
export class ApiProblem extends Error {
  constructor(result) {
    super(typeof result.body?.detail === "string" ? result.body.detail : `status ${result.status}`);
    this.result = result;
  }
}

/** A published snapshot by its API path (`v1/daily/2026-11-20`); throws ApiProblem when it is not there. */
export async function getSnapshot(path) {
  const init = { headers: { accept: "application/json" } };
  let first = null;
  if (snapshotMode !== "files") {
    first = await request(path, init);
    if (first.ok) {
      snapshotMode = "api";
      return first.body;
    }
    if (snapshotMode === "api") throw new ApiProblem(first);
  }
  const file = await request(`${path}.json`, init);
  if (file.ok) {
    snapshotMode = "files";
    return file.body;
  }
  // The server's own explanation (404 "No snapshot for ...") beats the static host's bare 404.
  throw new ApiProblem(first?.json ? first : file);
}

/** The URL that serves a snapshot here, once the page knows which kind of host it is on. */
export const snapshotUrl = (path) => (snapshotMode === "files" ? `${path}.json` : path);

/** GET of a server-only endpoint (the leaderboard). */
export const getJson = (path) => request(path, { headers: { accept: "application/json" } });

/** POST of a JSON body to a server-only endpoint. */
export const postJson = (path, body) =>
  request(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });

function retryAfterText(headers) {
  const seconds = Number(headers.get("retry-after"));
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  if (seconds < 90) return `Try again in ${Math.ceil(seconds)} seconds.`;
  if (seconds < 90 * 60) return `Try again in about ${Math.ceil(seconds / 60)} minutes.`;
  return `Try again in about ${Math.ceil(seconds / 3600)} hours.`;
}

/**
 * Readable lines for an answer that failed: each 422 issue as "Field: message", the 429 reason with
 * when to retry, and plain words when the server is not there at all (a static copy of the site).
 * `labels` maps body field names to the form's labels.
 */
export function describeProblem(result, labels = {}) {
  if (result.status === 0) return ["Could not reach the server. Check the connection and try again."];
  const detail = result.body?.detail;
  if (!result.json || result.status === 405 || (result.status === 404 && detail === "Not Found")) {
    return ["This needs the Research-Picks server (picks serve); this copy of the site cannot answer it."];
  }
  if (result.status === 422 && Array.isArray(detail)) {
    return detail.map((issue) => {
      const loc = (Array.isArray(issue?.loc) ? issue.loc : []).filter(
        (part) => part !== "body" && part !== "options",
      );
      const name = loc.map((part) => labels[part] ?? String(part)).join(" › ");
      const message = typeof issue?.msg === "string" ? issue.msg : "is not valid";
      return name ? `${name}: ${message}` : message;
    });
  }
  if (result.status === 413) return ["That is too large for the server (at most 1 MiB)."];
  const lines = [typeof detail === "string" ? detail : `The server answered with status ${result.status}.`];
  if (result.status === 429) {
    const retry = retryAfterText(result.headers);
    if (retry) lines.push(retry);
  }
  return lines;
}
