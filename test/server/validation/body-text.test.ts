import { describe, expect, it } from "vitest";
import { decodeJsonBytes, decodeRawBytes } from "../../../server/validation/body-text.ts";
import { parsePythonJson } from "../../../server/validation/python-json.ts";

type Outcome = ["ok", unknown] | ["json", string, number] | ["unicode"];

// CPython 3.11 json.loads(bytes.fromhex(hex)) for each row: encoding detection, BOMs, 'surrogatepass'.
const BYTES_CASES: [string, string, Outcome][] = [
  ["utf-8", "7b2261223a22c3a9227d", ["ok", { a: "é" }]],
  ["utf-8 with BOM", "efbbbf7b2261223a317d", ["ok", { a: 1 }]],
  ["two BOMs: the second is text", "efbbbfefbbbf7b2261223a317d", ["json", "Expecting value", 0]],
  ["utf-16 with BOM", "fffe7b002200610022003a002200e90022007d00", ["ok", { a: "é" }]],
  ["utf-16-be by zero bytes", "007b002200610022003a002200e90022007d", ["ok", { a: "é" }]],
  ["utf-16-le by zero bytes", "7b002200610022003a002200e90022007d00", ["ok", { a: "é" }]],
  [
    "utf-32 with BOM",
    "fffe00007b0000002200000061000000220000003a00000022000000e9000000220000007d000000",
    ["ok", { a: "é" }],
  ],
  [
    "utf-32-be by zero bytes",
    "0000007b0000002200000061000000220000003a00000022000000e9000000220000007d",
    ["ok", { a: "é" }],
  ],
  ["utf-32-le by zero bytes", "5b000000310000005d000000", ["ok", [1]]],
  ["invalid byte", "7b2261223a22ff227d", ["unicode"]],
  ["encoded surrogate passes", "7b2261223a22eda080227d", ["ok", { a: "\ud800" }]],
  ["overlong 2 bytes", "7b2261223a22c0af227d", ["unicode"]],
  ["overlong 3 bytes", "7b2261223a22e080af227d", ["unicode"]],
  ["above U+10FFFF", "7b2261223a22f4908080227d", ["unicode"]],
  ["positions after an astral character", "22f09f9880222078", ["json", "Extra data", 4]],
  [
    "utf-16 BOM, then a broken object",
    "fffe7b00",
    ["json", "Expecting property name enclosed in double quotes", 1],
  ],
  ["two bytes, utf-16-be", "005b", ["json", "Expecting value", 1]],
  ["utf-8 error position", "7b2261223a20312c202262223a205b7d", ["json", "Expecting value", 15]],
  [
    "utf-16-le error position",
    "7b002200610022003a002200e90022002c00200078007d00",
    ["json", "Expecting property name enclosed in double quotes", 10],
  ],
  ["two bytes, utf-16-le", "3100", ["ok", 1]],
];

function outcome(hex: string): Outcome {
  const text = decodeJsonBytes(Uint8Array.from(Buffer.from(hex, "hex")));
  if (text === undefined) return ["unicode"];
  const parsed = parsePythonJson(text);
  if (parsed.ok) return ["ok", parsed.value];
  if (parsed.reason === "invalid") return ["json", parsed.msg, parsed.pos];
  throw new Error("unexpected depth refusal");
}

describe("json.loads(bytes) decoding", () => {
  it.each(BYTES_CASES)("%s", (_name, hex, expected) => {
    expect(outcome(hex)).toEqual(expected);
  });

  it("an odd number of utf-16 bytes is a decode error", () => {
    expect(decodeJsonBytes(Uint8Array.from([0xff, 0xfe, 0x7b, 0x00, 0x7d]))).toBeUndefined();
  });
});

describe("bytes.decode() for bodies FastAPI leaves unparsed", () => {
  it("keeps the BOM and refuses invalid UTF-8", () => {
    expect(decodeRawBytes(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]))).toBe("\ufeffa");
    expect(decodeRawBytes(Uint8Array.from([0x61, 0xff]))).toBeUndefined();
  });
});
