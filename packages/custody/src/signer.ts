import type { Wallet } from "ethers";
import { AppError } from "@relay/core";
import { openWalletKey } from "./wallet-keys";
import type { Kek } from "./envelope";

/**
 * What the workers sign with, by wallet id. Local keys now; a KMS-backed signer can implement
 * the same shape.
 */
export interface Signer {
  /** EIP-191 personal_sign over `message`'s bytes: 65-byte 0x r‖s‖v hex, v = 27/28. */
  signMessage(walletId: string, message: Uint8Array): Promise<string>;
}

export interface WalletKeyRef {
  id: string;
  address: string;
  encryptedKey: string;
}

export interface LocalSignerOptions {
  /** Reads a wallet's sealed key; called once per wallet while it stays cached. */
  loadKey: (walletId: string) => Promise<WalletKeyRef | null>;
  maxCachedKeys?: number;
}

/**
 * Signs with keys opened from their sealed form. Opened keys stay in memory (bounded): deriving
 * the public key and reading the record on every request would cost as much as signing.
 */
export function createLocalSigner(kek: Kek, options: LocalSignerOptions): Signer {
  const max = options.maxCachedKeys ?? 10_000;
  const cache = new Map<string, Wallet>();

  const walletFor = async (walletId: string): Promise<Wallet> => {
    const cached = cache.get(walletId);
    if (cached) return cached;
    const ref = await options.loadKey(walletId);
    if (!ref) throw new AppError("NOT_FOUND", `Wallet ${walletId} does not exist`);
    const wallet = openWalletKey(kek, ref);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(walletId, wallet);
    return wallet;
  };

  return {
    signMessage: async (walletId, message) => (await walletFor(walletId)).signMessage(message),
  };
}
