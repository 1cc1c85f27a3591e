// A sparse vector packed as text for the store: ascending columns as varint gaps, each followed by its
// value as one signed byte (a step of `scale`), all in base64. A reader's model of 1,000 terms is then
// about 3 KB of JSON instead of 20 KB of number arrays; the byte's rounding (1/254 of the largest
// weight) moved no simulated reader's list.

export interface PackedTerms {
  /** The value of one step: a term's value is its byte times this. */
  scale: number;
  terms: string;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each base64 digit's value by its character code ("=" and anything else read as 0). */
const DIGITS = (() => {
  const digits = new Uint8Array(128);
  for (let k = 0; k < BASE64.length; k++) digits[BASE64.charCodeAt(k)] = k;
  return digits;
})();

function toBase64(bytes: readonly number[]): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    text += BASE64[(triple >> 18) & 63];
    text += BASE64[(triple >> 12) & 63];
    text += b === undefined ? "=" : BASE64[(triple >> 6) & 63];
    text += c === undefined ? "=" : BASE64[triple & 63];
  }
  return text;
}

function fromBase64(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i + 3 < text.length; i += 4) {
    let triple = 0;
    for (let k = 0; k < 4; k++) {
      const digit = DIGITS[text.charCodeAt(i + k) & 127] as number;
      triple = (triple << 6) | digit;
    }
    bytes.push((triple >> 16) & 255);
    if (text[i + 2] !== "=") bytes.push((triple >> 8) & 255);
    if (text[i + 3] !== "=") bytes.push(triple & 255);
  }
  return bytes;
}

/**
 * Packs `values` at ascending `columns`; values that round to zero are left out.
 * @example unpackTerms(packTerms([3, 40], [0.5, -1])) // { columns: [3, 40], values: [~0.5, -1] }
 */
export function packTerms(columns: readonly number[], values: readonly number[], signed = true): PackedTerms {
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  const levels = signed ? 127 : 255;
  // Rounded as stored, so packing and unpacking use one step; a vector too small to have one is empty.
  const step = Number((largest / levels).toPrecision(6));
  const scale = step > 0 && Number.isFinite(step) ? step : 1;
  const bytes: number[] = [];
  let previous = 0;
  columns.forEach((column, k) => {
    // The rounded step can make the largest value a level too many: it is held at the last one.
    const steps = Math.max(signed ? -levels : 0, Math.min(levels, Math.round((values[k] as number) / scale)));
    if (steps === 0) return;
    let gap = column - previous;
    previous = column;
    while (gap >= 128) {
      bytes.push((gap & 127) | 128);
      gap >>>= 7;
    }
    bytes.push(gap);
    bytes.push(steps & 255);
  });
  return { scale, terms: toBase64(bytes) };
}

export function unpackTerms(packed: PackedTerms, signed = true): { columns: number[]; values: number[] } {
  const bytes = fromBase64(packed.terms);
  const columns: number[] = [];
  const values: number[] = [];
  let column = 0;
  let i = 0;
  while (i < bytes.length) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[i++] as number;
      gap += (byte & 127) * 2 ** shift;
      shift += 7;
    } while (byte & 128 && i < bytes.length);
    column += gap;
    const raw = bytes[i++] ?? 0;
    columns.push(column);
    values.push((signed && raw > 127 ? raw - 256 : raw) * packed.scale);
  }
  return { columns, values };
}
