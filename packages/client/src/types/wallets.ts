/** Syndicate's wallet routes and managed gas top-ups. */

export type WalletType = "BROADCAST" | "SIGNING" | "CLUSTER_MANAGER";

export interface CreateWalletRequest {
  projectId: string;
  chainId: number;
  type?: "BROADCAST" | null;
}

export interface CreateWalletResponse {
  projectId: string;
  walletAddress: string;
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
}

export interface WalletWithData extends Wallet {
  txCount?: number;
  balance?: string;
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
