import { hexlify, keccak256, Transaction } from "ethers";
import { bumpFees, type Fees } from "@relay/chain";
import { AppError, type Logger } from "@relay/core";
import type { TransactionStatus } from "@relay/lifecycle";
import type { ChainHandle } from "../chain-directory";
import { broadcast } from "./broadcast";
import type { StepDeps } from "./deps";

/** A plain transfer's gas on L1: the least a filler carries. */
const SELF_TRANSFER_GAS = 21_000n;

/**
 * The gas a 0-value self-transfer of `address` needs on this chain, as the node estimates it: more
 * than 21,000 where the chain charges its L1 data in gas (Arbitrum) or counts differently
 * (zkSync), and where the wallet delegates to code (EIP-7702). A filler signed with 21,000 there
 * is refused for good ("intrinsic gas too low"), and the gap stays open.
 */
export async function selfTransferGas(provider: ChainHandle["provider"], address: string): Promise<bigint> {
  const estimate = BigInt((await provider.send("eth_estimateGas", [{ from: address, to: address, value: "0x0" }, "latest"])) as string);
  return estimate > SELF_TRANSFER_GAS ? estimate : SELF_TRANSFER_GAS;
}

/** A stored filler's signed transaction, read back from its bytes. */
const signedOf = (raw: Uint8Array): Transaction => Transaction.from(hexlify(raw));

/** The fees signed into a filler. */
function feesOfSigned(tx: Transaction): Fees {
  return tx.type === 2 ? { type: 2, maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n } : { type: 0, gasPrice: tx.gasPrice ?? 0n };
}

/**
 * Whether a nonce's holder leaves it unused for good: no transaction holds it, or the one that does
 * ended without using it on chain (CANCELLED: when its cancel mined, the filler is a self-transfer
 * like it, so refilling is harmless). An unfinished holder's job will use it (or waits for funds); a
 * CONFIRMED or REVERTED one was mined, so a node that does not count it yet lags or reorganised,
 * and a filler could replace that very transaction.
 */
export const abandons = (holder: TransactionStatus | null): boolean => holder === null || holder === "INVALID" || holder === "FAILED" || holder === "CANCELLED" || holder === "EXPIRED";

/**
 * Closes a nonce gap: when the wallet's next nonce on chain is bound to no transaction, or to one
 * that ended without using it, a 0-value transfer to itself uses that nonce so the transactions
 * after it can be mined. The filler is stored before it is broadcast, and at most one is signed
 * per nonce (the table's key), so replicas and retries rebroadcast the same bytes; bytes the node
 * refuses on their fees, or takes but does not mine within the stuck time, are replaced
 * (compare-and-swap on their hash) by new ones priced higher.
 * A nonce a transaction from outside the relay already waits at in the node's pool is left to it.
 * Returns whether the nonce needed a filler (signed now, or signed before and sent again).
 */
export async function fillGapIfAbandoned(deps: StepDeps, { record: chain, provider, view }: ChainHandle, address: string, nonce: bigint, logger: Logger): Promise<boolean> {
  const holder = await deps.fillers.holderStatus(chain.chainId, address, nonce);
  if (!abandons(holder)) return false;

  const wallet = await deps.wallets.findByAddress(address);
  if (!wallet) throw new AppError("INTERNAL", `wallet ${address} no longer exists`);
  const signFiller = async (fees: Fees, gasLimit: bigint) => {
    const raw = await deps.signer.signTransaction(wallet.id, {
      chainId: chain.chainId,
      nonce: Number(nonce),
      to: address,
      value: 0n,
      gasLimit,
      ...(fees.type === 2 ? { type: 2, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas } : { type: 0, gasPrice: fees.gasPrice }),
    });
    return { chainId: chain.chainId, address, nonce, hash: keccak256(raw), rawTransaction: Buffer.from(raw.slice(2), "hex") };
  };
  const stored = await deps.fillers.find(chain.chainId, address, nonce);
  if (!stored && holder === null && BigInt(await provider.getTransactionCount(address, "pending")) > nonce) {
    // A nonce no transaction of ours holds is one the counter was raised past, for a transaction
    // sent with the key outside the relay: the node's pool holds it, and it will use the nonce (a
    // filler priced above it would replace it). Not asked for a nonce one of ours abandoned:
    // nothing outside was sent at it, and nodes that count every pooled nonce, gaps included
    // (Besu, Erigon), answer past it whenever our later transactions wait in their pool: the gap
    // would never be filled, and the wallet would wait behind it for good.
    logger.warn({ address, nonce: nonce.toString(), holder }, "a transaction from outside the relay waits at this nonce: not filled");
    return false;
  }
  let filler = stored ?? (await deps.fillers.record(await signFiller(await view.fees(), await selfTransferGas(provider, address))));
  let outcome = await broadcast(provider, filler);
  // Taken by the node ("already known" too) but not mined within the chain's stuck time, as for a
  // transaction: priced out since (a base fee risen past its max fee, which geth keeps in its pool
  // without mining, answering a resend "already known"). The nonce is the wallet's next on chain,
  // so it waits behind nothing: without new bytes, every later transaction would wait for the base
  // fee to fall back.
  const stuck = outcome.kind === "sent" && deps.now() - filler.signedAt.getTime() >= chain.stuckAfterSeconds * 1000;
  if (outcome.kind === "underpriced" || stuck) {
    // Signed before the base fee rose, or under what the node takes: the same bytes never will be.
    // New ones priced for now and 12.5 % above, within the chain's caps, in their place.
    const signed = signedOf(filler.rawTransaction);
    const fees = bumpFees(feesOfSigned(signed), await view.fees(), chain);
    if (fees) {
      filler = await deps.fillers.replace(filler.hash, await signFiller(fees, signed.gasLimit));
      outcome = await broadcast(provider, filler);
    }
  } else if (outcome.kind === "rejected") {
    // Refused for good. For want of gas (signed before this chain's need was estimated), new bytes
    // with the gas estimated now, and today's price, take their place. For anything else (the
    // node's fee cap, a chain id) new bytes would be refused the same way, each run: they stay,
    // and the operator is told.
    const gas = await selfTransferGas(provider, address);
    if (gas > signedOf(filler.rawTransaction).gasLimit) {
      filler = await deps.fillers.replace(filler.hash, await signFiller(await view.fees(), gas));
      outcome = await broadcast(provider, filler);
    }
    if (outcome.kind === "rejected") {
      logger.error({ address, nonce: nonce.toString(), hash: filler.hash, refusal: outcome.message }, "the node refuses the filler for this nonce; the wallet's later transactions wait behind it");
    }
  }
  logger.warn({ address, nonce: nonce.toString(), hash: filler.hash, holder, broadcast: outcome.kind }, "filled an abandoned nonce with a self-transfer");
  return true;
}
