import type { NewWalletKey } from "@relay/custody";
import { recordWalletCreated, storeWallet, type AuditDatabase, type WalletRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface CreateWalletDeps {
  wallets: Pick<WalletRepository, "create" | "findByAddress" | "findById">;
  /** A new key, ready to be sealed for a record (@relay/custody generateWalletKey with the worker's KEK). */
  newKey: () => NewWalletKey;
  /** Where the wallet.created entry goes (docs/audit.md). */
  audit: AuditDatabase;
}

/** What the gateway hears: the wallet's id and address; never anything of its key. */
export interface CreateWalletResult {
  walletId: string;
  address: string;
}

/**
 * Creates the wallet a POST /wallet/create asked for, as `wallets create` does (storeWallet): the
 * key is generated here, sealed for the record and inserted with it in one statement. The record's
 * id is the job's walletId, so a job run twice (a retry, a stall) answers the wallet it made.
 */
export function createCreateWalletProcessor(deps: CreateWalletDeps): Processor<"createWallet"> {
  return async (payload, { logger }): Promise<CreateWalletResult> => {
    const wallet = await storeWallet(deps.wallets, payload.projectId, deps.newKey(), { id: payload.walletId, walletType: payload.walletType });
    // Once per wallet: a retried job finds the wallet it made and, if its first run recorded it, the entry too.
    await recordWalletCreated(deps.audit, {
      actor: { type: "api_key", id: payload.keyId ?? null },
      projectId: wallet.projectId,
      walletAddress: wallet.address,
      subject: wallet.id,
      details: { walletType: wallet.walletType, via: "POST /wallet/create" },
    });
    logger.info({ projectId: wallet.projectId, walletId: wallet.id, address: wallet.address }, "wallet created");
    return { walletId: wallet.id, address: wallet.address };
  };
}
