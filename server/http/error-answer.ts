import type { AppContext } from "../context.ts";
import { detail } from "./answers.ts";

/**
 * What a request that failed unexpectedly gets, for the app's `onError` and the keyed fast path. A
 * failure while the store is down is the store's, not a bug: the keyed endpoints answer 503 and the
 * static ones keep working (they never touch the store). Anything else is logged and a bare 500.
 */
export async function errorAnswer(
  context: Pick<AppContext, "store" | "log">,
  failure: { status: number; message: string; cause?: unknown },
): Promise<Response> {
  const status = Math.min(failure.status, 500);
  if (status < 500) return detail(status, failure.message);
  // Node's own error for a client that closed the connection before its body ended: nobody is left
  // to answer, and nothing went wrong here.
  const cause = failure.cause as { code?: string; message?: string } | undefined;
  if (cause?.code === "ECONNRESET" && cause.message === "aborted") {
    return detail(400, "The client closed the request before its body ended");
  }
  if (!(await context.store.ping().catch(() => false))) {
    return detail(503, "The key and usage store is unreachable; try again shortly.", {
      "retry-after": "5",
    });
  }
  context.log(`unhandled error: ${(failure.cause as Error)?.stack ?? failure.message}`);
  return detail(500, "Internal Server Error");
}
