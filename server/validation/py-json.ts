// What Starlette's JSONResponse writes: json.dumps(content, ensure_ascii=False, allow_nan=False,
// separators=(",", ":")). JSON.stringify agrees on strings, arrays and objects; numbers differ, because
// Python keeps ints and floats apart and prints floats with repr ("1.0", "1e-05"). A lone surrogate,
// which Python's UTF-8 encoder would refuse (FastAPI's 500), is written as JSON.stringify's \uXXXX escape.

/** A number Python holds as a float, e.g. a `ge` bound of a float field: serialized as `1.0`, not `1`. */
export class PyFloat {
  readonly value: number;

  constructor(value: number) {
    this.value = value;
  }
}

interface Decimal {
  negative: boolean;
  digits: string;
  /** Decimal exponent of the first digit: 1234.5 -> 3. */
  exponent: number;
}

// toExponential() without an argument yields the shortest digits that round-trip, as Python and Rust use.
function shortestDecimal(x: number): Decimal {
  const [mantissa = "0", exp = "0"] = x.toExponential().split("e");
  const negative = mantissa.startsWith("-");
  return { negative, digits: mantissa.replace("-", "").replace(".", ""), exponent: Number(exp) };
}

function fixedNotation({ digits, exponent }: Decimal): { whole: string; fraction: string } {
  if (exponent < 0) return { whole: "0", fraction: "0".repeat(-exponent - 1) + digits };
  return {
    whole: digits.slice(0, exponent + 1).padEnd(exponent + 1, "0"),
    fraction: digits.slice(exponent + 1),
  };
}

/** Python's repr(float): `1.0`, `0.5`, `1e-05`, `1e+16`. Non-finite values give `nan`/`inf`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const decimal = shortestDecimal(x);
  const sign = decimal.negative ? "-" : "";
  if (decimal.exponent < -4 || decimal.exponent >= 16) {
    const mantissa =
      decimal.digits.length > 1 ? `${decimal.digits[0]}.${decimal.digits.slice(1)}` : decimal.digits;
    const expSign = decimal.exponent < 0 ? "-" : "+";
    return `${sign}${mantissa}e${expSign}${String(Math.abs(decimal.exponent)).padStart(2, "0")}`;
  }
  const { whole, fraction } = fixedNotation(decimal);
  return `${sign}${whole}.${fraction || "0"}`;
}

/** Rust's `{}` for f64, which pydantic-core uses inside messages: `1`, `0.5`, `0.0000001`, never an exponent. */
export function rustFloatDisplay(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const decimal = shortestDecimal(x);
  const { whole, fraction } = fixedNotation(decimal);
  return `${decimal.negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

// A plain JS number is an int when whole and a float otherwise (py-value.ts): whole floats come wrapped
// in PyFloat and ints past 2**53 as bigint, so each prints as Python printed the client's number.
function pyNumber(x: number): string {
  if (!Number.isFinite(x)) return "null"; // Python would refuse (allow_nan=False); null keeps the body JSON.
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x === 0 ? 0 : x) : pyFloatRepr(x);
  return pyFloatRepr(x);
}

/**
 * Serializes like Starlette's JSONResponse. `undefined` becomes `null` (Python has only None); a Map is
 * a dict, written in its own order (a plain object would put integer-like keys first).
 */
export function pyJson(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return pyNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return "null";
  }
  if (value === null) return "null";
  if (value instanceof PyFloat) return Number.isFinite(value.value) ? pyFloatRepr(value.value) : "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + pyJson(value[i]);
    return `${out}]`;
  }
  if (value instanceof Map) {
    let out = "{";
    let first = true;
    for (const [key, item] of value) {
      out += `${first ? "" : ","}${JSON.stringify(String(key))}:${pyJson(item)}`;
      first = false;
    }
    return `${out}}`;
  }
  let out = "{";
  let first = true;
  for (const key of Object.keys(value)) {
    out += `${first ? "" : ","}${JSON.stringify(key)}:${pyJson((value as Record<string, unknown>)[key])}`;
    first = false;
  }
  return `${out}}`;
}
