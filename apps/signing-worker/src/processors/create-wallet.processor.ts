import { isAppError, type CustodyBackendName } from "@relay/core";
import { recordWalletCreated, storeWallet, type AuditDatabase, type KeyToStore, type WalletRecord, type WalletRepository } from "@relay/db";
import type { CreateWalletResult, Processor } from "@relay/queue";

export interface CreateWalletDeps {
  wallets: Pick<WalletRepository, "create" | "findByAddress" | "findById">;
  /**
   * A new key in the backend asked for, ready to be stored (@relay/custody newWalletKey with the
   * worker's KEK, HSM and KMS). A backend the worker is not configured for is a BAD_REQUEST.
   */
  newKey: (backend: CustodyBackendName) => Promise<KeyToStore>;
  /** Where the wallet.created entry goes (docs/audit.md). */
  audit: AuditDatabase;
}

/**
 * Creates the wallet a POST /wallet/create asked for, as `wallets create` does (storeWallet): the
 * key is generated here, in the backend asked for, and stored with the record in one statement.
 * The record's id is the job's walletId, so a job run twice (a retry, a stall) answers the wallet
 * it made. A backend this worker cannot use is answered as a refusal the gateway turns into a 400.
 */
export function createCreateWalletProcessor(deps: CreateWalletDeps): Processor<"createWallet"> {
  return async (payload, { logger }): Promise<CreateWalletResult> => {
    // Once per wallet: a retried job finds the wallet it made and records the entry if its first
    // run did not get to it (recordWalletCreated skips one already there).
    const recorded = async (wallet: Pick<WalletRecord, "id" | "projectId" | "address" | "walletType" | "backend">): Promise<CreateWalletResult> => {
      await recordWalletCreated(deps.audit, {
        actor: { type: "api_key", id: payload.keyId ?? null },
        projectId: wallet.projectId,
        walletAddress: wallet.address,
        subject: wallet.id,
        details: { walletType: wallet.walletType, backend: wallet.backend, via: "POST /wallet/create" },
      });
      return { walletId: wallet.id, address: wallet.address, backend: wallet.backend };
    };
    // Found before a key is made: an HSM or KMS key made for a run that changes nothing would stay
    // in its backend, unused (a KMS key is paid for by the month).
    const done = await deps.wallets.findById(payload.walletId);
    if (done && done.projectId === payload.projectId) return recorded(done);
    let key: KeyToStore;
    try {
      key = await deps.newKey(payload.backend);
    } catch (e) {
      if (isAppError(e) && e.code === "BAD_REQUEST") {
        logger.warn({ projectId: payload.projectId, walletId: payload.walletId, backend: payload.backend, reason: e.message }, "wallet creation refused");
        return { refused: e.message };
      }
      throw e;
    }
    const wallet = await storeWallet(deps.wallets, payload.projectId, key, { id: payload.walletId, walletType: payload.walletType });
    logger.info({ projectId: wallet.projectId, walletId: wallet.id, address: wallet.address, backend: wallet.backend }, "wallet created");
    return recorded(wallet);
  };
}
