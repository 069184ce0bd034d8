/** Syndicate's wallet routes and managed gas top-ups. */

export type WalletType = "BROADCAST" | "SIGNING" | "CLUSTER_MANAGER";

/** Where a wallet's key is kept (a relay field): sealed by the relay, in a PKCS#11 HSM, or in AWS KMS. */
export type CustodyBackend = "LOCAL" | "HSM" | "KMS";

export interface CreateWalletRequest {
  projectId: string;
  chainId: number;
  type?: "BROADCAST" | null;
  /** Omitted: LOCAL. HSM and KMS must be configured on the relay's workers. */
  backend?: CustodyBackend | null;
}

export interface CreateWalletResponse {
  projectId: string;
  walletAddress: string;
  backend: CustodyBackend;
}

export interface WalletRequest {
  projectId: string;
  walletAddress: string;
}

export interface RetireWalletResponse {
  projectId: string;
  walletAddress: string;
  transactionId?: string;
}

export interface Wallet {
  walletId: string;
  walletAddress: string;
  chainId: number;
  nonce: number;
  isActive: boolean;
  projectId: string;
  createdAt: string;
  updatedAt: string;
  walletType: WalletType;
  retiredAt: string | null;
  backend: CustodyBackend;
}

export interface WalletWithData extends Wallet {
  txCount?: number;
  balance?: string;
  /** Below the chain's low-balance threshold when the relay last read it (relay field). */
  lowBalance?: boolean;
  /**
   * The wallet's nonce on the chain as the relay last read it (relay field): `latest` mined,
   * `pending` with the node's pending transactions, `readAt` when.
   */
  chainNonce?: { latest: number; pending: number; readAt: string };
}

export type FundingStatus = "PENDING" | "SUBMITTED" | "CONFIRMED" | "FAILED";

export interface FundingTransaction {
  id: string;
  createdAt: string;
  updatedAt: string;
  chainId: number;
  projectId: string;
  fromAddress: string;
  toAddress: string;
  amount: string;
  hash: string;
  signedTxn: string;
  block: number;
  status: FundingStatus;
}

export interface FundingTransactions {
  transactions: FundingTransaction[];
  total: number;
}
