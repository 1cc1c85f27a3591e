import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

// Keys look like `rp_labs_<30 random base62 chars><6 checksum chars>`: about 178 random bits, and a
// CRC32 checksum (as GitHub's tokens have) so a mistyped or invented key is refused without a store
// lookup, and secret scanners can recognise a leaked one.

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6;
export const DEFAULT_KEY_PREFIX = "rp_labs_";

function base62(bytes: Buffer, length: number): string {
  let out = "";
  for (let i = 0; out.length < length; i++) {
    // Rejection sampling keeps every character uniform: 248 = 4 * 62.
    const byte = bytes[i % bytes.length] as number;
    if (byte < 248) out += ALPHABET[byte % 62];
    if (i >= bytes.length - 1 && out.length < length) bytes = randomBytes(32);
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new secret key. Shown once to its owner; only its hash is stored. */
export function generateKey(prefix = DEFAULT_KEY_PREFIX): string {
  const body = base62(randomBytes(48), RANDOM_CHARS);
  return `${prefix}${body}${checksum(body)}`;
}

/** True when the key has the prefix, the length, the alphabet and a matching checksum. */
export function isWellFormedKey(key: string, prefix = DEFAULT_KEY_PREFIX): boolean {
  if (key.length !== prefix.length + RANDOM_CHARS + CHECKSUM_CHARS || !key.startsWith(prefix)) return false;
  const rest = key.slice(prefix.length);
  if (!/^[0-9A-Za-z]+$/.test(rest)) return false;
  const expected = Buffer.from(checksum(rest.slice(0, RANDOM_CHARS)));
  return timingSafeEqual(expected, Buffer.from(rest.slice(RANDOM_CHARS)));
}

/** The stored form of a key. Keys carry ~178 random bits, so a fast hash is enough: nothing to brute-force. */
export function hashKey(key: string): string {
  // The one-shot form: no Hash object per keyed request.
  return hash("sha256", key, "hex");
}

/** The public handle of a key for operators (`picks keys list`, revoke): derived from the hash, never secret. */
export function keyIdOf(hash: string): string {
  return `key_${hash.slice(0, 16)}`;
}
