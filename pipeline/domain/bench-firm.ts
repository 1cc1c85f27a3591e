import { z } from "zod";

/**
 * A firm's slug: lowercase letters, digits and single hyphens, 2..40 characters. It becomes a store key
 * segment, so nothing that unstorage reads as a separator (":" or "/") can appear in it.
 */
export const FIRM_SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,39}$";
export const FirmSlugSchema = z
  .string()
  .regex(new RegExp(FIRM_SLUG_PATTERN))
  .describe("the firm's slug, e.g. acme-bank");
export type FirmSlug = z.infer<typeof FirmSlugSchema>;

/** True when `value` is a well-formed firm slug. */
export const isFirmSlug = (value: string): boolean => FirmSlugSchema.safeParse(value).success;
