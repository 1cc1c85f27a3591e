import type { IncomingMessage, ServerResponse } from "node:http";
import { nodeClientIp } from "../access/client-ip.ts";
import type { AppContext } from "../context.ts";
import { answerVerify, VERIFY_BODY_MAX_BYTES } from "../routes/verify-routes.ts";
import { type BodyResult, parseBodyBytes, tooLarge } from "../validation/json-body.ts";
import { readNodeBody } from "../validation/read-body.ts";
import { failedAnswer, sendResponse, writeJson } from "./node-answer.ts";

// The playground's check as a fast route (./fast-routes.ts): it also skips the Request, Headers and
// Response objects and the async iteration of the body (`npm run profile -- verify`).

/**
 * The request's body, parsed. Its own function so that no local of `serveVerifyFast` holds the bytes or
 * the parsed body while the answer waits: an async frame keeps its locals across an await, dead or not.
 */
async function readVerifyBody(req: IncomingMessage): Promise<BodyResult> {
  const read = await readNodeBody(req, VERIFY_BODY_MAX_BYTES);
  return read.ok ? parseBodyBytes(read.bytes, req.headers["content-type"]) : tooLarge(VERIFY_BODY_MAX_BYTES);
}

/** `POST /v1/verify` on Node's request and response. */
export async function serveVerifyFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ key?: undefined }> {
  // Read now: once the client has gone, its socket no longer says where it was.
  const address = nodeClientIp(req, context.config.trustProxy);
  try {
    // Neither the body nor its bytes in a local: see readVerifyBody.
    const answer = answerVerify(context, await readVerifyBody(req), address);
    writeJson(res, await answer);
  } catch (error) {
    // A client gone before its body ended has no one to answer, and nothing went wrong here.
    if (!req.complete && req.destroyed) return {};
    await sendResponse(res, await failedAnswer(context, error), context.log);
  }
  return {};
}
