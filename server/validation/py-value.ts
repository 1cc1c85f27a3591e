// The values of json.loads as the validation layer holds them when it must echo them exactly:
//   dict  -> Map, in the client's key order (a plain object puts integer-like keys first)
//   int   -> number when a safe integer, else bigint (9007199254740993 keeps its last digit)
//   float -> number when not whole (0.5, NaN, Infinity), else PyFloat (1.0, -0.0, 1e16 print as Python does)
// str, list, bool and None are JS strings, arrays, booleans and null. The scanner produces these; the fast
// path (JSON.parse) gives plain values, which differ only where these wrappers or a Map would appear.
import { PyFloat } from "./py-json.ts";

/** Python 3.11+ refuses to convert longer digit strings to int (sys.int_info.default_max_str_digits). */
export const MAX_INT_DIGITS = 4300;

/**
 * int(text) or float(text) for a JSON number's text, held as above; undefined for an int of more than
 * 4300 digits, which Python refuses with ValueError.
 * @example jsonNumber("1e2", true) // PyFloat(100), printed 100.0
 */
export function jsonNumber(text: string, isFloat: boolean): unknown {
  if (isFloat) {
    const value = Number(text);
    return Number.isInteger(value) ? new PyFloat(value) : value;
  }
  const digits = text.charCodeAt(0) === 0x2d ? text.length - 1 : text.length;
  if (digits > MAX_INT_DIGITS) return undefined;
  const value = Number(text);
  if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  return BigInt(text);
}

/** Sets an own property even when the key is `__proto__`, which plain assignment would treat as a setter. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** The value as plain JS, for what reads it as such (zod, a field that takes anything). */
export function plainValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) {
    // Copied only when an item changes: a plain array (the common case) is handed on as it is.
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = plainValue(value[i]);
      if (item !== value[i]) {
        out ??= value.slice();
        out[i] = item;
      }
    }
    return out ?? value;
  }
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) setOwn(out, key, plainValue(item));
    return out;
  }
  return value;
}

/** The item at `path` inside a parsed value, or undefined when there is none. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current instanceof Map) current = current.get(String(key));
    else if (Array.isArray(current) && typeof key === "number") current = current[key];
    else if (typeof current === "object" && current !== null && Object.hasOwn(current, key))
      current = (current as Record<PropertyKey, unknown>)[key];
    else return undefined;
  }
  return current;
}
