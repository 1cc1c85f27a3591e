// pydantic's lax coercion of strings (query and path values, and strings inside JSON bodies), ported
// from pydantic-core src/input/shared.rs: str_as_int, str_as_float, str_as_bool.
// jiter applies Python's limit of 4300 digits to an int.
import { MAX_INT_DIGITS } from "./py-value.ts";

// Rust's str::trim strips Unicode White_Space: unlike String.prototype.trim, U+0085 yes, U+FEFF no.
const RUST_WS = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const RUST_TRIM = new RegExp(`^${RUST_WS}+|${RUST_WS}+$`, "g");

export function rustTrim(text: string): string {
  return text.replace(RUST_TRIM, "");
}

const JSON_INT = /^-?(?:0|[1-9][0-9]*)$/;

/** An int is exact: a bigint past 2**53, as Python's int keeps every digit. */
export type IntParse = number | bigint | "int_parsing" | "int_parsing_size";

// jiter's NumberInt::try_from: a JSON integer and nothing else.
function jsonInt(text: string): number | bigint | "int_parsing_size" | undefined {
  if (!JSON_INT.test(text)) return undefined;
  if (text.length > MAX_INT_DIGITS) return "int_parsing_size";
  const value = Number(text);
  if (!Number.isSafeInteger(value)) return BigInt(text);
  return value === 0 ? 0 : value;
}

// Python allows single underscores between digits: 1_000.
function stripUnderscores(text: string): string | undefined {
  if (text.startsWith("_") || text.endsWith("_") || !text.includes("_") || text.includes("__"))
    return undefined;
  return text.replaceAll("_", "");
}

function stripLeadingZeros(text: string): string | undefined {
  const first = text[0];
  if (first === undefined) return undefined;
  if (first !== "0") return (first >= "1" && first <= "9") || first === "-" ? text : undefined;
  for (let i = 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "0" || ch === "_") continue;
    if ((ch >= "1" && ch <= "9") || ch === "-") return text.slice(i);
    if (ch === ".") return text.slice(i - 1);
    return undefined;
  }
  return text.slice(-1);
}

// clean_int_str: whitespace, a unary plus, leading zeros, a `.0+` tail and underscores go.
function cleanIntStr(input: string): string | undefined {
  let text = rustTrim(input);
  if (text.startsWith("+")) {
    if (text[1] === "-") return undefined;
    text = text.slice(1);
  }
  let negative = false;
  if (text.startsWith("-")) {
    if (text[1] === "-" || text[1] === "+") return undefined;
    negative = true;
    text = text.slice(1);
  }
  const stripped = stripLeadingZeros(text);
  if (stripped === undefined) return undefined;
  text = stripped;
  const dot = text.indexOf(".");
  if (dot !== -1) {
    const decimals = text.slice(dot + 1);
    if (decimals.length > 0 && /^0+$/.test(decimals)) text = text.slice(0, dot);
  }
  const sign = negative ? "-" : "";
  const withoutUnderscores = stripUnderscores(text);
  if (withoutUnderscores !== undefined) return sign + withoutUnderscores;
  return input.length === text.length ? undefined : sign + text;
}

/** pydantic's lax str -> int: `" 042 "`, `"4_2"`, `"42.00"`, `"+42"` are 42; `"4.2"` is int_parsing. */
export function strAsInt(text: string): IntParse {
  const direct = jsonInt(text);
  if (direct !== undefined) return direct;
  const cleaned = cleanIntStr(text);
  if (cleaned === undefined) return "int_parsing";
  const value = jsonInt(cleaned);
  return value === undefined || value === "int_parsing_size" ? "int_parsing" : value;
}

// Rust's f64::from_str: optional sign, inf/infinity/nan in any case, or decimal digits with an exponent.
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)$/i;

function rustParseFloat(text: string): number | undefined {
  if (!RUST_FLOAT.test(text)) return undefined;
  const unsigned = text.replace(/^[+-]/, "").toLowerCase();
  if (unsigned === "nan") return Number.NaN;
  if (unsigned === "inf" || unsigned === "infinity") return text.startsWith("-") ? -Infinity : Infinity;
  return Number(text);
}

/** pydantic's lax str -> float; undefined is float_parsing. `"nan"` and `"inf"` parse, as in Rust. */
export function strAsFloat(text: string): number | undefined {
  const value = rustParseFloat(rustTrim(text));
  if (value !== undefined) return value;
  const withoutUnderscores = stripUnderscores(text);
  return withoutUnderscores === undefined ? undefined : rustParseFloat(withoutUnderscores);
}

// Non-unicode regexes never fold a non-ASCII letter onto an ASCII one, like eq_ignore_ascii_case.
const FALSE_WORDS = /^(?:0|f|n|no|off|false)$/i;
const TRUE_WORDS = /^(?:1|t|y|on|yes|true)$/i;

/** pydantic's lax str -> bool; undefined is bool_parsing. No trimming, as in pydantic. */
export function strAsBool(text: string): boolean | undefined {
  if (FALSE_WORDS.test(text)) return false;
  if (TRUE_WORDS.test(text)) return true;
  return undefined;
}
