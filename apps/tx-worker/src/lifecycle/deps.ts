import type { Logger } from "@relay/core";
import type { Signer } from "@relay/custody";
import type { NewTopUp, NonceFillerRepository, TopUpRepository, TransactionRecord, TransactionRepository, WalletBalanceRepository, WalletRepository } from "@relay/db";
import type { ChainDirectory } from "../chain-directory";

/** What the lifecycle steps work with; built once per worker in worker.ts. */
export interface StepDeps {
  transactions: TransactionRepository;
  fillers: NonceFillerRepository;
  balances: Pick<WalletBalanceRepository, "recordBalance" | "recordChainNonce">;
  /** Managed gas: the top-ups a balance check calls for, and their jobs (top-up.ts). */
  topUps: Pick<TopUpRepository, "topUpIfDue"> & { enqueue: (topUp: NewTopUp) => Promise<void> };
  wallets: Pick<WalletRepository, "listByProject" | "findByAddress" | "listAddresses">;
  chains: ChainDirectory;
  signer: Pick<Signer, "signTransaction">;
  now: () => number;
  /**
   * The chains' block followers (block-follower.ts), which settle mined transactions once per
   * block: `ensure` makes sure the chain's is alive and awake (follower-watch.ts); it never
   * throws. Absent, each transaction's job looks at the chain itself every block.
   */
  blockFollower?: { ensure: (chainId: bigint) => Promise<void> };
}

export interface StepContext {
  logger: Logger;
}

/** A transaction whose nonce is bound: it is sent from that wallet, at that nonce, whatever else changes. */
export type BoundTransaction = TransactionRecord & { fromAddress: string; nonce: bigint };
