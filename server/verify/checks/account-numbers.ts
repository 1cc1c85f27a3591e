// Checksums that tell real card and bank account numbers from arbitrary digit runs.

/** Luhn (mod 10) over a string of digits. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

// Issuer prefixes of the big networks; Luhn alone lets one random number in ten through.
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6011|6[45]|62|35)/;

/** A payment card number: 13 to 19 digits, a known network prefix, a valid Luhn checksum. */
export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && CARD_PREFIX.test(digits) && luhnValid(digits);
}

const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  (
    "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 EG29 " +
    "ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 " +
    "LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 " +
    "QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20"
  )
    .split(" ")
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

/** The IBAN length of a country, or undefined for countries without IBANs. */
export function ibanLength(country: string): number | undefined {
  return IBAN_LENGTHS[country.toUpperCase()];
}

function alphanumericValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  if (code >= 97 && code <= 122) return code - 87;
  return -1;
}

function mod97(remainder: number, value: number): number {
  return value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
}

/**
 * Reads an IBAN of `length` characters at `start`, compact or grouped by single spaces, and checks
 * mod 97 on the way, without building strings (scanners call this at every candidate). Returns the end
 * index when the checksum holds, or -1.
 */
export function readIban(text: string, start: number, length: number): number {
  let count = 0;
  let remainder = 0;
  let end = start;
  while (end < text.length && count < length) {
    const code = text.charCodeAt(end);
    const value = alphanumericValue(code);
    if (value >= 0) {
      if (count >= 4) remainder = mod97(remainder, value);
      count += 1;
    } else if (code !== 32 || text.charCodeAt(end - 1) === 32) {
      break;
    }
    end += 1;
  }
  if (count !== length) return -1;
  // The country code and check digits count last (ISO 13616).
  for (let k = start; k < start + 4; k++) remainder = mod97(remainder, alphanumericValue(text.charCodeAt(k)));
  return remainder === 1 ? end : -1;
}
