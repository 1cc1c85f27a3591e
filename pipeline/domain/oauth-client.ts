import { z } from "zod";
import { checkRedirectUri, MAX_REDIRECT_URIS } from "./oauth-redirect.ts";

// What an OAuth client says of itself, in the fields this server reads: sent to dynamic registration
// (RFC 7591 §2), or published as its Client ID Metadata Document at its https client_id. One schema
// for both, so a client is held to the same rules whichever way it comes.

/** Names are shown on the consent page; longer ones are refused rather than cut. */
export const MAX_CLIENT_NAME = 100;

export const ClientMetadataSchema = z.object({
  redirect_uris: z
    .array(z.string())
    .min(1)
    .max(MAX_REDIRECT_URIS)
    .superRefine((uris, context) => {
      uris.forEach((uri, index) => {
        const checked = checkRedirectUri(uri);
        if ("problem" in checked) {
          context.addIssue({
            code: "custom",
            path: [index],
            message: `${uri.slice(0, 200)}: ${checked.problem}`,
          });
        }
      });
    }),
  client_name: z.string().max(MAX_CLIENT_NAME).optional(),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
  scope: z.string().max(200).optional(),
});

/** A metadata document also names itself, and must give the name the consent page shows. */
export const ClientMetadataDocumentSchema = ClientMetadataSchema.extend({
  client_id: z.string(),
  client_name: z.string().min(1).max(MAX_CLIENT_NAME),
});

/**
 * The first thing wrong with a client's metadata, for its error answer: a field's issue first, and a
 * redirect URI's problem (RFC 7591's invalid_redirect_uri) only when every other field is right.
 *
 * @example metadataProblem(ClientMetadataSchema.safeParse({ redirect_uris: ["mailto:x"] }).error) // { redirectUri: "mailto:x: the mailto: scheme ..." }
 */
export function metadataProblem(
  error: z.ZodError,
): { path: string; message: string } | { redirectUri: string } {
  const field = error.issues.find((issue) => issue.code !== "custom");
  if (field) return { path: field.path.join("."), message: field.message };
  return { redirectUri: error.issues[0]?.message ?? "" };
}
