import { getAddress } from "ethers";

const MAX_REMEMBERED = 10_000;
const remembered = new Map<string, string>();

/**
 * ethers' getAddress (EIP-55: checks a mixed-case checksum, returns the checksummed form; throws
 * otherwise), remembering its answers: the same few wallet and contract addresses arrive on every
 * request, and each check is a keccak-256 in JavaScript (about 2 % of the gateway's CPU per
 * personal-sign request). Only valid addresses are remembered, at most MAX_REMEMBERED at a time.
 */
export function checksumAddress(value: string): string {
  const known = remembered.get(value);
  if (known !== undefined) return known;
  const checksummed = getAddress(value);
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(value, checksummed);
  return checksummed;
}
