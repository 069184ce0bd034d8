import secp256k1 from "secp256k1";
import { computeAddress, getAddress } from "ethers";
import { AppError } from "@relay/core";

/** An ECDSA signature over a 32-byte digest with what Ethereum needs beside it: s ≤ n/2 and the recovery id. */
export interface RecoverableSignature {
  /** r‖s, 64 bytes, s in the lower half of the curve order. */
  rs: Uint8Array;
  recid: 0 | 1;
}

/** secp256k1's group order. */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_ORDER = CURVE_ORDER >> 1n;

const toBytes32 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(64, "0"), "hex");

/**
 * An HSM or KMS answers r and s only, and either half of s (both verify as ECDSA). Ethereum takes
 * the low one only (EIP-2), and a recovery id saying which of the two public keys r could come
 * from. s > n/2 becomes n − s (the same signature mirrored); the recovery id is then the one whose
 * recovered key is the wallet's address. A signature that recovers to neither was not made by the
 * wallet's key: a CRYPTO error, never a signature handed on.
 */
export function toRecoverable(digest: Uint8Array, r: bigint, s: bigint, address: string): RecoverableSignature {
  if (r <= 0n || r >= CURVE_ORDER || s <= 0n || s >= CURVE_ORDER) {
    throw new AppError("CRYPTO", "The key's backend answered a signature out of range");
  }
  const rs = new Uint8Array(64);
  rs.set(toBytes32(r), 0);
  rs.set(toBytes32(s > HALF_ORDER ? CURVE_ORDER - s : s), 32);
  const expected = getAddress(address);
  for (const recid of [0, 1] as const) {
    let publicKey: Uint8Array;
    try {
      publicKey = secp256k1.ecdsaRecover(rs, recid, digest, false);
    } catch {
      continue;
    }
    if (computeAddress(`0x${Buffer.from(publicKey).toString("hex")}`) === expected) return { rs, recid };
  }
  throw new AppError("CRYPTO", `The key's backend answered a signature that does not recover to wallet ${expected}`);
}
