import type { WalletChainRow, WalletRecord } from "@relay/db";

/** A wallet row in Syndicate's shape (its Wallet, with WalletWithTxCountAndBalance's fields when read withData). */
export function toWalletResponse(row: WalletChainRow) {
  return {
    walletId: row.walletId,
    walletAddress: row.address,
    chainId: Number(row.chainId),
    nonce: Number(row.nonce),
    isActive: row.isActive,
    projectId: row.projectId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    walletType: row.walletType,
    retiredAt: row.retiredAt?.toISOString() ?? null,
    backend: row.backend,
    ...(row.confirmedCount === undefined ? {} : { txCount: row.confirmedCount }),
    ...(row.balanceWei === undefined || row.balanceWei === null ? {} : { balance: row.balanceWei.toString() }),
    ...(row.lowBalance === undefined || row.lowBalance === null ? {} : { lowBalance: row.lowBalance }),
    ...(row.chainNonce
      ? { chainNonce: { latest: Number(row.chainNonce.latest), pending: Number(row.chainNonce.pending), readAt: row.chainNonce.readAt.toISOString() } }
      : {}),
  };
}

/**
 * The row toggleIsActive answers (Syndicate's answer is one Wallet, which has a chain): the
 * wallet on the lowest configured chain id, or with chainId 0 when no chain is configured.
 */
export function toggledRow(wallet: WalletRecord, rows: WalletChainRow[]): WalletChainRow {
  const own = rows.filter((r) => r.walletId === wallet.id).sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : 0));
  const first = own[0];
  return {
    walletId: wallet.id,
    projectId: wallet.projectId,
    address: wallet.address,
    chainId: first?.chainId ?? 0n,
    nonce: first?.nonce ?? 0n,
    isActive: wallet.isActive,
    retiredAt: wallet.retiredAt,
    walletType: wallet.walletType,
    backend: wallet.backend,
    createdAt: wallet.createdAt,
    updatedAt: wallet.updatedAt,
  };
}
