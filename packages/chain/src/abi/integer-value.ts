import { badRequest, describeValue } from "./describe-value";

/**
 * `uintN` / `intN` from JSON. A JSON number is accepted only while it is exact (a safe integer):
 * past 2^53 the parser has already rounded it, and encoding the rounded value would send an
 * amount the client did not write. Larger values come as strings, decimal or 0x hex. Everything
 * JavaScript would also read as a number (" 12", "1e3", "0b1", "+1", "١٢", "1_000") is refused,
 * and so is negative zero, which only appears when a float computation went wrong upstream.
 */
const DECIMAL = /^-?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
/** int256's minimum has 78 digits; the margin allows some leading zeros, and keeps BigInt() cheap. */
const MAX_TEXT_LENGTH = 100;

export function convertInteger(value: unknown, bits: number, signed: boolean, path: string): string {
  const parsed = parseInteger(value);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (parsed === null || parsed < min || parsed > max) {
    const range = signed ? `-2^${bits - 1} and 2^${bits - 1}-1` : `0 and 2^${bits}-1`;
    const hint = typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)
      ? " (integers beyond 2^53 must be given as strings)"
      : "";
    throw badRequest(`${path} must be an integer between ${range}; got ${describeValue(value)}${hint}`);
  }
  return parsed.toString();
}

function parseInteger(value: unknown): bigint | null {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && !Object.is(value, -0) ? BigInt(value) : null;
  }
  if (typeof value !== "string" || value.length > MAX_TEXT_LENGTH) return null;
  if (HEX.test(value)) return BigInt(value);
  if (!DECIMAL.test(value)) return null;
  const parsed = BigInt(value);
  return parsed === 0n && value.startsWith("-") ? null : parsed;
}
