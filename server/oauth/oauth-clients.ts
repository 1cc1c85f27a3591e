import type { H3Event } from "h3";
import { limitByIp } from "../access/ip-limit.ts";
import type { AppContext } from "../context.ts";
import type { OAuthClient } from "./grants.ts";

/**
 * The client a `client_id` names: a registered one, or one described by its metadata document (why
 * not, for a document). A document not already kept is fetched for whoever asks, so a rate per
 * address bounds those fetches.
 */
export async function clientOf(
  context: AppContext,
  event: H3Event,
  clientId: string,
): Promise<{ client?: OAuthClient; problem?: string }> {
  if (!context.clientMetadata.names(clientId)) {
    return { client: (await context.oauth.client(clientId)) ?? undefined };
  }
  if (!context.clientMetadata.known(clientId)) {
    const rate = context.config.oauthDocumentRate;
    const limited = await limitByIp(context, event, rate.name, rate.limit, rate.windowSeconds);
    if (!limited.allowed)
      return { problem: "too many client metadata documents asked for from this address; try later" };
  }
  const resolved = await context.clientMetadata.resolve(clientId);
  return "problem" in resolved ? { problem: resolved.problem } : { client: resolved };
}
