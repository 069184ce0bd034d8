import { isInteger, parse } from "lossless-json";

/**
 * JSON integers past 2^53, kept exact. JSON.parse rounds them to the nearest double (a uint256
 * amount of 123456789012345678901 arrives as 123456789012345680000), so a body that may hold one
 * is read again with lossless-json, which hands each number literal over as written: integers
 * that a double cannot hold exactly become BigInt (the ABI encoder takes those as they are), and
 * every other number is what JSON.parse made of it. Nothing else changes.
 */

/** Digits in a row from which a number literal may be past 2^53 (9007199254740992 has 16). */
const LONG_RUN = 16;

/** Whether the raw body has LONG_RUN digits in a row (inside a string or not): only those are read again. */
export function mayHoldLargeInteger(raw: Buffer): boolean {
  let run = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i]!;
    if (byte >= 0x30 && byte <= 0x39) {
      if (++run >= LONG_RUN) return true;
    } else run = 0;
  }
  return false;
}

const parseNumber = (text: string): number | bigint => {
  const value = Number(text);
  return isInteger(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
};

/**
 * `raw` parsed with its large integers exact; `parsed` (JSON.parse's reading of the same bytes)
 * when lossless-json refuses what JSON.parse took, which is a key given twice with different
 * values: JSON.parse keeps the last one, and the request is judged as before.
 */
export function withExactIntegers(raw: Buffer, parsed: unknown): unknown {
  try {
    const text = raw.toString("utf8");
    // A leading byte order mark: JSON.parse was given the body without it.
    return parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, null, parseNumber);
  } catch {
    return parsed;
  }
}
