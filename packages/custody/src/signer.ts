import type { TypedData } from "@relay/chain";
import type { Kek } from "@relay/secrets";
import type { WalletKeyRecord } from "./backends";
import { createCustodySigner } from "./custody-signer";

/** A complete transaction to sign: nonce, gas and fees set. Legacy transactions are EIP-155 (chain id in v). */
export type UnsignedTransaction = {
  chainId: bigint;
  nonce: number;
  to: string;
  data?: string;
  value: bigint;
  gasLimit: bigint;
} & ({ type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint });

/**
 * What the workers sign with, by wallet id, whichever backend keeps the wallet's key
 * (createCustodySigner).
 */
export interface Signer {
  /** EIP-191 personal_sign over `message`'s bytes: 65-byte 0x r‖s‖v hex, v = 27/28. */
  signMessage(walletId: string, message: Uint8Array): Promise<string>;
  /** EIP-712 over typed data (checked again here: what is signed is what ethers.verifyTypedData hashes): 0x r‖s‖v hex, v = 27/28. */
  signTypedData(walletId: string, data: TypedData): Promise<string>;
  /** Signs a complete transaction; returns the raw 0x bytes (what eth_sendRawTransaction takes). */
  signTransaction(walletId: string, transaction: UnsignedTransaction): Promise<string>;
}

export interface LocalSignerOptions {
  /** Reads a wallet's sealed key; called once per wallet while it stays cached. */
  loadKey: (walletId: string) => Promise<WalletKeyRecord | null>;
  maxCachedKeys?: number;
}

/** The custody signer of a process configured for LOCAL wallets only (tests, tools). */
export const createLocalSigner = (kek: Kek, options: LocalSignerOptions): Signer => createCustodySigner({ kek, ...options });
