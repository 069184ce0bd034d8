import { AppError } from "@relay/core";
import type { Kek } from "@relay/secrets";
import { backendNotConfigured, type ExternalKeyBackend, type WalletKeyRecord } from "./backends";
import { ethereumSigner, type DigestSigner } from "./ethereum-signer";
import { localSignerFor } from "./local-backend";
import type { Signer } from "./signer";

export interface CustodySignerOptions {
  /** Reads a wallet's key record (backend, sealed key or key reference); once per wallet while it stays cached. */
  loadKey: (walletId: string) => Promise<WalletKeyRecord | null>;
  /** The key-encryption key LOCAL wallets are sealed under. */
  kek: Kek;
  /** Absent: this process signs for no HSM wallet (each such request fails with CONFIG, naming the settings). */
  hsm?: ExternalKeyBackend;
  kms?: ExternalKeyBackend;
  maxCachedKeys?: number;
}

/**
 * The one Signer the workers use, whatever keeps a wallet's key: per wallet it reads the record
 * once, builds the signer of the wallet's backend and keeps it (bounded, least recently used
 * evicted): reading and opening the record on every request would cost as much as signing.
 */
export function createCustodySigner(options: CustodySignerOptions): Signer {
  const max = options.maxCachedKeys ?? 10_000;
  // Least recently used first (a Map keeps insertion order; a hit moves the key to the end).
  const cache = new Map<string, DigestSigner>();
  // A cold wallet asked for by many requests at once (a batch of 100) is read and opened once.
  const loading = new Map<string, Promise<DigestSigner>>();

  const signerOf = async (wallet: WalletKeyRecord): Promise<DigestSigner> => {
    const backend = wallet.backend ?? "LOCAL";
    if (backend === "LOCAL") return localSignerFor(options.kek, wallet);
    const external = backend === "HSM" ? options.hsm : options.kms;
    if (!external) throw backendNotConfigured(backend, { walletId: wallet.id });
    if (!wallet.keyRef) throw new AppError("CRYPTO", `Wallet ${wallet.id} (backend ${backend}) has no key reference`);
    return external.signerFor({ id: wallet.id, address: wallet.address, keyRef: wallet.keyRef });
  };

  const load = async (walletId: string): Promise<DigestSigner> => {
    const wallet = await options.loadKey(walletId);
    if (!wallet) throw new AppError("NOT_FOUND", `Wallet ${walletId} does not exist`);
    const signer = await signerOf(wallet);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(walletId, signer);
    return signer;
  };

  return ethereumSigner((walletId) => {
    const cached = cache.get(walletId);
    if (cached) {
      cache.delete(walletId);
      cache.set(walletId, cached);
      return Promise.resolve(cached);
    }
    let pending = loading.get(walletId);
    if (!pending) {
      pending = load(walletId).finally(() => loading.delete(walletId));
      loading.set(walletId, pending);
    }
    return pending;
  });
}
