// Bytes to text as FastAPI sees them. A JSON body goes through Python's json.loads(bytes): the encoding
// is guessed from a BOM or zero bytes (json.detect_encoding) and decoded with 'surrogatepass'. Any other
// body is kept as bytes and later printed with bytes.decode(), plain UTF-8 with the BOM kept.
// `undefined` is Python's UnicodeDecodeError, which FastAPI turns into 400.

import { Buffer, isAscii } from "node:buffer";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

function fromCodeUnits(units: Uint16Array | number[]): string {
  let out = "";
  for (let i = 0; i < units.length; i += 4096) {
    out += String.fromCharCode(...units.slice(i, i + 4096));
  }
  return out;
}

const isContinuation = (b: number | undefined) => b !== undefined && b >= 0x80 && b <= 0xbf;

// Python's UTF-8 decoder with 'surrogatepass': strict, except that encoded surrogates (ED A0..BF xx)
// decode to lone surrogates. Only reached when TextDecoder refused the bytes.
function utf8SurrogatePass(bytes: Uint8Array): string | undefined {
  const units: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i] as number;
    let codePoint: number;
    let size: number;
    if (b0 < 0x80) {
      codePoint = b0;
      size = 1;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      if (!isContinuation(bytes[i + 1])) return undefined;
      codePoint = ((b0 & 0x1f) << 6) | ((bytes[i + 1] as number) & 0x3f);
      size = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      const b1 = bytes[i + 1];
      if (!isContinuation(b1) || !isContinuation(bytes[i + 2]) || (b0 === 0xe0 && (b1 as number) < 0xa0)) {
        return undefined;
      }
      codePoint = ((b0 & 0x0f) << 12) | (((b1 as number) & 0x3f) << 6) | ((bytes[i + 2] as number) & 0x3f);
      size = 3;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      const b1 = bytes[i + 1] as number;
      if (!isContinuation(b1) || !isContinuation(bytes[i + 2]) || !isContinuation(bytes[i + 3]))
        return undefined;
      if ((b0 === 0xf0 && b1 < 0x90) || (b0 === 0xf4 && b1 > 0x8f)) return undefined;
      codePoint =
        ((b0 & 0x07) << 18) |
        ((b1 & 0x3f) << 12) |
        (((bytes[i + 2] as number) & 0x3f) << 6) |
        ((bytes[i + 3] as number) & 0x3f);
      size = 4;
    } else {
      return undefined;
    }
    if (codePoint >= 0x10000) {
      const offset = codePoint - 0x10000;
      units.push(0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff));
    } else {
      units.push(codePoint);
    }
    i += size;
  }
  return fromCodeUnits(units);
}

function utf8(bytes: Uint8Array): string | undefined {
  // ASCII is its own UTF-8 and Latin-1: a native check and a copy cost a third of TextDecoder's
  // decoding (0.8 against 2.3 µs on a 10 KB body).
  if (isAscii(bytes)) return latin1(bytes);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return utf8SurrogatePass(bytes);
  }
}

// With 'surrogatepass' Python's UTF-16 codec accepts lone surrogates, so any even length decodes.
function utf16(bytes: Uint8Array, littleEndian: boolean): string | undefined {
  if (bytes.length % 2 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const units = new Uint16Array(bytes.length / 2);
  for (let i = 0; i < units.length; i++) units[i] = view.getUint16(i * 2, littleEndian);
  return fromCodeUnits(units);
}

function utf32(bytes: Uint8Array, littleEndian: boolean): string | undefined {
  if (bytes.length % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const codePoint = view.getUint32(i, littleEndian);
    if (codePoint > 0x10ffff) return undefined;
    out += String.fromCodePoint(codePoint);
  }
  return out;
}

const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/** json.loads(bytes): the text Python decodes, or undefined for UnicodeDecodeError. */
export function decodeJsonBytes(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0xff, 0xfe, 0, 0])) return utf32(bytes.subarray(4), true);
  if (startsWith(bytes, [0, 0, 0xfe, 0xff])) return utf32(bytes.subarray(4), false);
  if (startsWith(bytes, [0xff, 0xfe])) return utf16(bytes.subarray(2), true);
  if (startsWith(bytes, [0xfe, 0xff])) return utf16(bytes.subarray(2), false);
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return utf8(bytes.subarray(3));
  const [b0, b1, b2, b3] = bytes;
  if (bytes.length >= 4) {
    if (!b0) return b1 ? utf16(bytes, false) : utf32(bytes, false);
    if (!b1) return b2 || b3 ? utf16(bytes, true) : utf32(bytes, true);
  } else if (bytes.length === 2) {
    if (!b0) return utf16(bytes, false);
    if (!b1) return utf16(bytes, true);
  }
  return utf8(bytes);
}

/** bytes.decode(): strict UTF-8, BOM kept, for bodies FastAPI does not parse. */
export function decodeRawBytes(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
