import { AppError, type CustodyBackendName } from "@relay/core";
import type { Kek } from "@relay/secrets";
import { backendNotConfigured, type ExternalKeyBackend } from "./backends";
import { generateWalletKey } from "./wallet-keys";

/** A new wallet's key as storeWallet (@relay/db) stores it: sealed for LOCAL, a reference for HSM and KMS. */
export type NewKeyToStore =
  | { backend: "LOCAL"; address: string; sealFor: (walletId: string) => string }
  | { backend: "HSM" | "KMS"; address: string; keyRef: string };

export interface KeyMakers {
  /** Needed for LOCAL keys only (the CLI makes an HSM or KMS key without it). */
  kek?: Kek;
  hsm?: ExternalKeyBackend;
  kms?: ExternalKeyBackend;
}

/**
 * Generates a key in the backend asked for. A backend this process is not configured for is a
 * BAD_REQUEST naming the settings it needs (the HTTP answer is a 400, the CLI prints it).
 */
export async function newWalletKey(makers: KeyMakers, backend: CustodyBackendName): Promise<NewKeyToStore> {
  if (backend === "LOCAL") {
    if (!makers.kek) throw new AppError("CONFIG", "A LOCAL wallet's key is sealed under KEY_ENCRYPTION_KEY, which is not set");
    return { backend, ...generateWalletKey(makers.kek) };
  }
  const external = backend === "HSM" ? makers.hsm : makers.kms;
  if (!external) throw backendNotConfigured(backend, { creating: true });
  return { backend, ...(await external.createKey()) };
}
