// Python's repr() of literal values, which pydantic puts in `enum` and `literal_error` messages:
// Literal["A1", "A2"] -> "'A1' or 'A2'".
import { pyFloatRepr } from "./py-json.ts";

export type LiteralValue = string | number | boolean | null;

// Python's str.isprintable() is false for these categories; the space is the one printable separator.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hex(codePoint: number, width: number): string {
  return codePoint.toString(16).padStart(width, "0");
}

function escapeChar(ch: string, quote: string): string {
  if (ch === quote || ch === "\\") return `\\${ch}`;
  if (ch === "\t") return "\\t";
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === " " || !NON_PRINTABLE.test(ch)) return ch;
  const codePoint = ch.codePointAt(0) ?? 0;
  if (codePoint < 0x100) return `\\x${hex(codePoint, 2)}`;
  if (codePoint < 0x10000) return `\\u${hex(codePoint, 4)}`;
  return `\\U${hex(codePoint, 8)}`;
}

/** Python's repr() of a str: single quotes unless the text has a `'` and no `"`. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) out += escapeChar(ch, quote);
  return out + quote;
}

function pyRepr(value: LiteralValue): string {
  if (value === null) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  return pyStrRepr(value);
}

/** pydantic-core's expected_repr: "'a'", "'a' or 'b'", "'a', 'b' or 'c'". */
export function expectedRepr(values: readonly LiteralValue[]): string {
  const reprs = values.map(pyRepr);
  const last = reprs.pop() ?? "";
  return reprs.length === 0 ? last : `${reprs.join(", ")} or ${last}`;
}
