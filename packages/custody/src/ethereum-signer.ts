import { hashMessage } from "ethers";
import { keccak256, serializeTransaction, type Hex, type TransactionSerializable } from "viem";
import { typedDataDigest } from "@relay/chain";
import type { RecoverableSignature } from "./recoverable-signature";
import type { Signer, UnsignedTransaction } from "./signer";

/** One wallet's key, whichever backend keeps it: signs a 32-byte digest. */
export interface DigestSigner {
  signDigest(digest: Uint8Array): Promise<RecoverableSignature>;
}

const bytes = (hex: string): Uint8Array => Buffer.from(hex.slice(2), "hex");
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The transaction as viem serializes it (the same bytes as ethers' Transaction; a test holds it to that). */
const serializable = (tx: UnsignedTransaction): TransactionSerializable => {
  const common = { chainId: Number(tx.chainId), nonce: tx.nonce, to: tx.to as Hex, data: (tx.data ?? "0x") as Hex, value: tx.value, gas: tx.gasLimit };
  return tx.type === 2
    ? { ...common, type: "eip1559", maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas }
    : { ...common, type: "legacy", gasPrice: tx.gasPrice };
};

const rsv = ({ rs, recid }: RecoverableSignature) => `0x${hex(rs)}${(27 + recid).toString(16)}`;

/**
 * What every backend shares: the digests Ethereum signs (EIP-191, EIP-712, a transaction's
 * signing hash) and the signature or raw transaction assembled from the backend's (r, s, recid).
 * A backend only ever sees a digest.
 */
export function ethereumSigner(keyFor: (walletId: string) => Promise<DigestSigner>): Signer {
  return {
    signMessage: async (walletId, message) => rsv(await (await keyFor(walletId)).signDigest(bytes(hashMessage(message)))),
    signTypedData: async (walletId, data) => rsv(await (await keyFor(walletId)).signDigest(bytes(typedDataDigest(data)))),
    // Serialized with viem: about half the CPU of ethers' Transaction (which checksums the
    // address and encodes twice), byte-identical.
    signTransaction: async (walletId, transaction) => {
      const key = await keyFor(walletId);
      const tx = serializable(transaction);
      const { rs, recid } = await key.signDigest(bytes(keccak256(serializeTransaction(tx))));
      const r = `0x${hex(rs.subarray(0, 32))}` as Hex;
      const s = `0x${hex(rs.subarray(32))}` as Hex;
      const signature =
        transaction.type === 2 ? { r, s, yParity: recid } : { r, s, v: BigInt(recid) + 35n + 2n * transaction.chainId };
      return serializeTransaction(tx, signature);
    },
  };
}
