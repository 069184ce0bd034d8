import type { Logger } from "@relay/core";
import type { Signer } from "@relay/custody";
import type { NonceFillerRepository, TransactionRecord, TransactionRepository, WalletBalanceRepository, WalletRepository } from "@relay/db";
import type { ChainDirectory } from "../chain-directory";

/** What the lifecycle steps work with; built once per worker in worker.ts. */
export interface StepDeps {
  transactions: TransactionRepository;
  fillers: NonceFillerRepository;
  balances: Pick<WalletBalanceRepository, "recordBalance">;
  wallets: Pick<WalletRepository, "listByProject" | "findByAddress" | "listAddresses">;
  chains: ChainDirectory;
  signer: Pick<Signer, "signTransaction">;
  now: () => number;
}

export interface StepContext {
  logger: Logger;
}

/** A transaction whose nonce is bound: it is sent from that wallet, at that nonce, whatever else changes. */
export type BoundTransaction = TransactionRecord & { fromAddress: string; nonce: bigint };
