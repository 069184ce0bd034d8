import { checksumAddress } from "../address/checksum-address";
import { badRequest, describeValue } from "./describe-value";
import { convertInteger } from "./integer-value";

/**
 * The ABI's elementary types from JSON, one strict form each, normalized so two requests that
 * mean the same call store the same arguments: addresses checksummed, hex lower-case, integers as
 * decimal strings (bigints do not survive JSON).
 */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const FIXED_BYTES = /^bytes([0-9]+)$/;
const INTEGER = /^(u?)int([0-9]+)$/;

export function convertScalar(type: string, value: unknown, path: string): string | boolean {
  const got = (): string => `; got ${describeValue(value)}`;
  switch (type) {
    case "address":
      return convertAddress(value, path, got);
    case "bool":
      if (typeof value !== "boolean") throw badRequest(`${path} must be true or false${got()}`);
      return value;
    case "string":
      if (typeof value !== "string") throw badRequest(`${path} must be a string${got()}`);
      // A lone surrogate has no UTF-8 encoding; ethers would throw mid-encode.
      if (!value.isWellFormed()) throw badRequest(`${path} must be a string of valid Unicode (it has a lone surrogate)`);
      // The normalized arguments are stored as Postgres jsonb, which cannot hold U+0000.
      if (value.includes("\u0000")) throw badRequest(`${path} must not contain the NUL character (\\u0000)`);
      return value;
    case "bytes":
      if (typeof value !== "string" || !HEX_BYTES.test(value)) {
        throw badRequest(`${path} must be 0x-prefixed hex of whole bytes (an even number of digits)${got()}`);
      }
      return value.toLowerCase();
  }
  const fixed = FIXED_BYTES.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    if (typeof value !== "string" || value.length !== 2 + 2 * size || !HEX_BYTES.test(value)) {
      throw badRequest(`${path} must be 0x-prefixed hex of exactly ${size} bytes${got()}`);
    }
    return value.toLowerCase();
  }
  const integer = INTEGER.exec(type);
  if (integer) return convertInteger(value, Number(integer[2]), integer[1] !== "u", path);
  throw badRequest(`${path} has the type ${type}, which cannot be encoded`);
}

function convertAddress(value: unknown, path: string, got: () => string): string {
  if (typeof value !== "string" || !ADDRESS.test(value)) {
    throw badRequest(`${path} must be an address (0x and 40 hex digits)${got()}`);
  }
  try {
    // All-lower or all-upper hex carries no checksum; mixed case must be a correct EIP-55 one.
    return checksumAddress(value);
  } catch (e) {
    throw badRequest(`${path} must be an address with a valid EIP-55 checksum (or all one case)${got()}`, e);
  }
}
