import type { z } from "zod";
import type { HeaderName } from "./headers.ts";

/** One answer of an operation, as a route file declares it. */
export interface ResponseDoc {
  description: string;
  /** The body's schema; none for an answer without a body (304). */
  body?: z.ZodType;
  /** The body's media type when it is not JSON. */
  mediaType?: string;
  /** The same answer may come as a server-sent event stream instead: what its events carry. */
  eventStream?: string;
  /** The same answer in other text formats, chosen by `Accept`: media type -> what the text is. */
  alternatives?: Readonly<Record<string, string>>;
  /** The headers this answer carries: `true` when always, `false` when only sometimes. */
  headers?: Partial<Record<HeaderName, boolean>>;
}
