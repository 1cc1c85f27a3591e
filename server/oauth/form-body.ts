import type { H3Event } from "h3";
import { readBodyLimited } from "../validation/read-body.ts";

// The authorization server's requests as parameter lists, each name with all its values, so that a
// repeated parameter is seen (RFC 6749 §3.1: "parameters MUST NOT be included more than once").

/** Registration and form bodies are small: a client's metadata, or a form of seven fields. */
export const BODY_MAX_BYTES = 16 * 1024;

export type Params = Map<string, string[]>;

function collect(entries: Iterable<[string, string]>): Params {
  const params: Params = new Map();
  for (const [name, value] of entries) params.set(name, [...(params.get(name) ?? []), value]);
  return params;
}

/** A form body (application/x-www-form-urlencoded); undefined when not one, or larger than BODY_MAX_BYTES. */
export async function readForm(event: H3Event): Promise<Params | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(event.req.headers.get("content-type") ?? ""))
    return undefined;
  const read = await readBodyLimited(event.req, BODY_MAX_BYTES);
  if (!read.ok) return undefined;
  return collect(new URLSearchParams(new TextDecoder().decode(read.bytes)));
}

/** A URL's query parameters. */
export const queryParams = (url: URL): Params => collect(url.searchParams);

/** A parameter given exactly once; undefined when absent or repeated. */
export const single = (params: Params, name: string): string | undefined => {
  const values = params.get(name);
  return values?.length === 1 ? values[0] : undefined;
};
