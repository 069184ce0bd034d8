import { AppError, type CustodyBackendName } from "@relay/core";
import type { DigestSigner } from "./ethereum-signer";

/** A wallet's record as the signers read it: where its key is, and the address it must sign for. */
export interface WalletKeyRecord {
  id: string;
  address: string;
  /** Absent: LOCAL (records read before wallets had a backend). */
  backend?: CustodyBackendName;
  /** LOCAL: the sealed key. */
  encryptedKey: string | null;
  /** HSM: the key's CKA_ID (hex); KMS: the key's ARN. */
  keyRef?: string | null;
}

/** A backend keeping keys outside the database (HSM, KMS). */
export interface ExternalKeyBackend {
  /** Generates a key inside the backend; what the wallet record keeps of it. */
  createKey(): Promise<{ address: string; keyRef: string }>;
  /** The signer of a stored wallet's key (found once; the dispatching signer caches it). */
  signerFor(wallet: { id: string; address: string; keyRef: string }): Promise<DigestSigner>;
  close(): Promise<void>;
}

/** The settings each backend needs, named in the error a process without them answers. */
export const BACKEND_SETTINGS: Record<Exclude<CustodyBackendName, "LOCAL">, string> = {
  HSM: "HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN",
  KMS: "KMS_REGION (and AWS credentials from the SDK's default chain)",
};

const DESCRIPTION: Record<Exclude<CustodyBackendName, "LOCAL">, string> = {
  HSM: "a PKCS#11 HSM",
  KMS: "AWS KMS",
};

/**
 * The backend is not configured in this process: nothing a retry changes. `BAD_REQUEST` when a
 * user asked for it (a wallet creation), `CONFIG` when a stored wallet needs it (an operator's fix).
 */
export function backendNotConfigured(backend: Exclude<CustodyBackendName, "LOCAL">, action: { creating: true } | { walletId: string }): AppError {
  const settings = BACKEND_SETTINGS[backend];
  return "creating" in action
    ? new AppError("BAD_REQUEST", `Custody backend ${backend} (${DESCRIPTION[backend]}) is not configured on this relay: an operator sets ${settings} for the signing worker, the tx-worker and the CLI`)
    : new AppError("CONFIG", `Wallet ${action.walletId}'s key is kept in ${DESCRIPTION[backend]} (backend ${backend}), which this process is not configured for: set ${settings}`);
}
