import type { Wallet } from "ethers";
import { openWalletKey } from "./wallet-keys";
import type { Kek } from "./envelope";

/**
 * What the workers sign with. Local keys now; a KMS-backed signer can implement the same shape.
 */
export interface Signer {
  /** EIP-191 personal_sign over the UTF-8 bytes of `message`: 65-byte 0x r‖s‖v hex, v = 27/28. */
  signMessage(wallet: WalletKeyRef, message: Uint8Array): Promise<string>;
}

export interface WalletKeyRef {
  id: string;
  address: string;
  encryptedKey: string;
}

/**
 * Signs with keys opened from their sealed form. Opened keys stay in memory for the life of the
 * process (bounded): deriving the public key on every request would cost as much as signing.
 */
export function createLocalSigner(kek: Kek, options: { maxCachedKeys?: number } = {}): Signer {
  const max = options.maxCachedKeys ?? 10_000;
  const cache = new Map<string, Wallet>();

  const walletFor = (ref: WalletKeyRef): Wallet => {
    const cached = cache.get(ref.id);
    if (cached) return cached;
    const wallet = openWalletKey(kek, ref);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(ref.id, wallet);
    return wallet;
  };

  return {
    signMessage: (ref, message) => walletFor(ref).signMessage(message),
  };
}
