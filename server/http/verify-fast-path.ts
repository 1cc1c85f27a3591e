import type { IncomingMessage, ServerResponse } from "node:http";
import { clientIp } from "../access/client-ip.ts";
import type { AppContext } from "../context.ts";
import { answerVerify, VERIFY_BODY_MAX_BYTES } from "../routes/verify-routes.ts";
import { type BodyResult, parseBodyBytes, tooLarge } from "../validation/json-body.ts";
import { readNodeBody } from "../validation/read-body.ts";
import { failedAnswer, plainly, sendResponse, writeJson } from "./node-answer.ts";

// The playground's check, answered before the router through the route's own `answerVerify`, so with
// the same bytes, headers and refusals. It skips the h3 layer (router, event, Request, Headers and
// Response objects) and the async iteration of the body: about 20 µs of a request's CPU (180 to
// 159 µs under `npm run profile -- verify`) before the checks themselves were made faster.

/** True for `POST /v1/verify` written plainly. */
export const isVerifyPost = (req: IncomingMessage): boolean =>
  req.method === "POST" && plainly(req.url ?? "", "/v1/verify");

/**
 * The request's body, parsed. Its own function so that no local of `serveVerifyFast` holds the bytes or
 * the parsed body while the answer waits: an async frame keeps its locals across an await, dead or not.
 */
async function readVerifyBody(req: IncomingMessage): Promise<BodyResult> {
  const read = await readNodeBody(req, VERIFY_BODY_MAX_BYTES);
  return read.ok ? parseBodyBytes(read.bytes, req.headers["content-type"]) : tooLarge(VERIFY_BODY_MAX_BYTES);
}

/** The client's address, as the limit counts it. */
function addressOf(context: AppContext, req: IncomingMessage, socketAddress: string | undefined): string {
  // Node joins a repeated X-Forwarded-For with ", " as Headers.get does; the type allows a list.
  const forwarded = req.headers["x-forwarded-for"];
  const forwardedFor = typeof forwarded === "string" ? forwarded : (forwarded?.join(", ") ?? null);
  return clientIp(socketAddress, forwardedFor, context.config.trustProxy);
}

/** `POST /v1/verify` on Node's request and response. */
export async function serveVerifyFast(
  context: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Read now: once the client has gone, its socket no longer says where it was.
  const socketAddress = req.socket.remoteAddress;
  try {
    // Neither the body nor its bytes in a local: see readVerifyBody.
    const answer = answerVerify(context, await readVerifyBody(req), addressOf(context, req, socketAddress));
    writeJson(res, await answer);
  } catch (error) {
    // A client gone before its body ended has no one to answer, and nothing went wrong here.
    if (!req.complete && req.destroyed) return;
    await sendResponse(res, await failedAnswer(context, error), context.log);
  }
}
