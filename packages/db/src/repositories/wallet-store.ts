import { AppError } from "@relay/core";
import type { WalletRecord, WalletRepository, WalletType } from "./wallet.repository";

/**
 * A key ready to be stored (@relay/custody NewKeyToStore): its address, and either its sealing for
 * the record with a given id (LOCAL; no backend means LOCAL) or where an HSM or KMS keeps it.
 */
export type KeyToStore =
  | { backend?: "LOCAL"; address: string; sealFor: (walletId: string) => string }
  | { backend: "HSM" | "KMS"; address: string; keyRef: string };

const isUniqueViolation = (e: unknown): boolean => typeof e === "object" && e !== null && (e as { code?: unknown }).code === "P2002";

/**
 * Stores a new wallet of a project: the one implementation behind `wallets create|import` (CLI)
 * and POST /wallet/create (the signing worker). A LOCAL key is sealed for the record's id and
 * written with it in one INSERT, so there is never a record without its key, nor a key without a
 * record; an HSM or KMS key, already made in its backend, is written as its reference. The record
 * names its backend.
 *
 * `id`: the caller's id for the wallet (a job's): when a wallet with that id exists already (a
 * retried job), it is answered and no second wallet is made. An address another wallet has is a
 * CONFLICT (an address belongs to one project only).
 */
export async function storeWallet(
  wallets: Pick<WalletRepository, "create" | "findByAddress" | "findById">,
  projectId: string,
  key: KeyToStore,
  options: { id?: string; walletType?: WalletType } = {},
): Promise<WalletRecord> {
  const { id } = options;
  const existing = async () => (id === undefined ? null : wallets.findById(id));
  const done = await existing();
  if (done) return sameProject(done, projectId);
  const conflict = (owner: WalletRecord | null, cause?: unknown) =>
    new AppError(
      "CONFLICT",
      owner && owner.projectId === projectId
        ? `Wallet ${key.address} is already in this project (id ${owner.id}): nothing to do`
        : `Wallet ${key.address} already exists in another project: an address can belong to one project only`,
      { cause },
    );
  const taken = await wallets.findByAddress(key.address);
  if (taken) throw conflict(taken);
  // The unique address decides between two imports of the same key running at once; the primary
  // key between two runs of one job.
  const stored = "keyRef" in key ? { backend: key.backend, keyRef: key.keyRef } : { sealKey: key.sealFor };
  return wallets.create({ id, projectId, address: key.address, ...stored, walletType: options.walletType }).catch(async (e: unknown) => {
    if (!isUniqueViolation(e)) throw e;
    const byId = await existing();
    if (byId) return sameProject(byId, projectId);
    throw conflict(await wallets.findByAddress(key.address), e);
  });
}

function sameProject(wallet: WalletRecord, projectId: string): WalletRecord {
  if (wallet.projectId !== projectId) throw new AppError("CONFLICT", `Wallet id ${wallet.id} belongs to another project`);
  return wallet;
}
