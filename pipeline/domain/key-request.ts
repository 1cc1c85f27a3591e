import { z } from "zod";

/**
 * A request for a self-issued free key: the body of POST /v1/keys, and the consent page's "Get a free
 * key" form. Lengths are counted in code points, as the validation layer counts every string.
 */
export const KeyIssueRequestSchema = z.object({
  email: z.string().min(3).max(120).describe("where to reach the key's owner"),
  label: z.string().min(1).max(80).describe("what the key is for, e.g. the application's name"),
});

export type KeyIssueRequest = z.infer<typeof KeyIssueRequestSchema>;
