import { parse } from "lossless-json";
import { RoundedNumber } from "@relay/chain";

/**
 * Numbers as the client wrote them. JSON.parse reads every number literal as a double: an integer
 * past 2^53 is rounded (a uint256 amount of 123456789012345678901 arrives as
 * 123456789012345680000), and so is a fraction next to a large whole part
 * (4503599627370496.5 arrives as 4503599627370496). A body that may hold such a literal is read
 * again with lossless-json, which hands each literal over as text:
 *
 * - a literal whose value is a whole number (`12`, `1.0`, `1e21`, 2^128) becomes that exact
 *   number: a Number when a double holds it exactly, a BigInt otherwise (the ABI encoder takes
 *   both);
 * - one with a fraction that a double rounds to a whole number becomes a RoundedNumber, which no
 *   integer argument takes (a 400 naming it);
 * - any other number is what JSON.parse made of it (`1.5`).
 */

/** Digits in a row from which a whole number may be past 2^53 (9007199254740992 has 16). */
const LONG_RUN = 16;
/** Beyond any intN/uintN (int256 has 78 digits): an exponent that asks for more zeros than this is not written out. */
const MAX_DIGITS = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/**
 * Whether the raw body has, outside its strings, a number literal JSON.parse may have rounded:
 * LONG_RUN digits in a row, or a fraction or exponent. One pass over the bytes; only those bodies
 * are read again.
 */
export function mayHoldRoundedNumber(raw: Buffer): boolean {
  let inString = false;
  let escaped = false;
  let run = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (isDigit(byte)) {
      if (++run >= LONG_RUN) return true;
      continue;
    }
    // Outside strings, a digit is followed by ".", "e" or "E" only inside a number literal.
    if (run > 0 && (byte === 0x2e || byte === 0x65 || byte === 0x45)) return true;
    run = 0;
    if (byte === QUOTE) inString = true;
  }
  return false;
}

const LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The exact whole number a literal denotes, or null when it has a fraction or is too long to matter. */
function wholeNumberOf(text: string): bigint | null {
  const parts = LITERAL.exec(text);
  if (!parts) return null;
  const [, sign, whole, fraction = "", exponentText = "0"] = parts;
  const digits = whole! + fraction;
  const exponent = Number(exponentText);
  // Where the decimal point falls in `digits`.
  const point = whole!.length + exponent;
  if (point < digits.length && !/^0*$/.test(digits.slice(Math.max(0, point)))) return null;
  // Zeros to append beyond the written digits: a few for `1e21`, not a million for `1e1000000`.
  if (point - digits.length > MAX_DIGITS) return null;
  const integerDigits = point <= 0 ? "0" : point >= digits.length ? digits + "0".repeat(point - digits.length) : digits.slice(0, point);
  const value = BigInt(integerDigits);
  return sign ? -value : value;
}

const parseNumber = (text: string): number | bigint | RoundedNumber => {
  const value = Number(text);
  const whole = wholeNumberOf(text);
  // A whole number a double holds exactly comes out of Number() exactly (-0 stays -0, which the
  // encoder refuses as before).
  if (whole !== null) return Number.isSafeInteger(value) ? value : whole;
  return Number.isInteger(value) ? new RoundedNumber(text) : value;
};

/**
 * `raw` parsed with its numbers as written (above); `parsed` (JSON.parse's reading of the same
 * bytes) when lossless-json refuses what JSON.parse took, which is a key given twice with
 * different values: JSON.parse keeps the last one, and the request is judged as before.
 */
export function withExactNumbers(raw: Buffer, parsed: unknown): unknown {
  try {
    const text = raw.toString("utf8");
    // A leading byte order mark: JSON.parse was given the body without it.
    return parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, null, parseNumber);
  } catch {
    return parsed;
  }
}
