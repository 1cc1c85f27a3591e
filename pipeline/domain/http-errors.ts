import { z } from "zod";

// The error bodies of the HTTP API, in FastAPI's shapes and under FastAPI's component names, so a client
// generated from the original service's OpenAPI document reads them unchanged.

/** Every error but a validation failure: `{"detail": "<message>"}` (FastAPI's HTTPException). */
export const HttpErrorSchema = z.object({
  detail: z.string().describe("what went wrong and, where the client can act, what to do"),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;

/** One problem of a request, as pydantic reports it (the body is written in the order type, loc, msg). */
export const ValidationErrorSchema = z.object({
  loc: z
    .array(z.union([z.string(), z.int()]))
    .describe("where: path, query, header or body, then field names and list indexes"),
  msg: z.string(),
  type: z.string().describe("pydantic's error type, e.g. missing, string_too_short, int_parsing"),
  input: z.unknown().optional().describe("the value that was refused"),
  ctx: z.record(z.string(), z.unknown()).optional().describe('the constraint, e.g. {"min_length": 3}'),
});
export type ValidationError = z.infer<typeof ValidationErrorSchema>;

/** A 422: every problem of the request, in the order path, query, header, body. */
export const HttpValidationErrorSchema = z.object({ detail: z.array(ValidationErrorSchema) });
export type HttpValidationError = z.infer<typeof HttpValidationErrorSchema>;
