import { capBelowMarket, capsWith, withinCaps, type ChainView, type FeeCaps, type Fees } from "@relay/chain";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import type { ChainHandle } from "../chain-directory";
import type { StepDeps } from "./deps";
import { noteReasonOnce } from "./note-reason-once";

type WithRequest = Pick<TransactionRecord, "request">;

/** The caps a transaction is priced within: the chain's, and its own maxFeePerGas if it gave one. */
export const transactionCaps = (chain: FeeCaps, tx: WithRequest): FeeCaps => capsWith(chain, tx.request.maxFeePerGasWei);

/**
 * Fees for a new attempt of `tx`: the chain view's shared price, or, for a transaction with its
 * own maxFeePerGas, the same market read within that cap too (no further call to the node).
 */
export async function feesFor(view: Pick<ChainView, "chain" | "fees" | "market">, tx: WithRequest): Promise<Fees> {
  if (tx.request.maxFeePerGasWei === null) return view.fees();
  return withinCaps((await view.market()).fees, transactionCaps(view.chain, tx));
}

/** Marks the history entry of a wait on fees, so it is written once per wait. */
export const HELD_FOR_FEES = "held: the market's fee is above";

/**
 * A transaction with no nonce yet whose max-fee cap (the chain's, or its own maxFeePerGas) is
 * below what the market asks to be included now waits, unsigned and without a nonce: signed under
 * the cap it would sit in the pool with a nonce that blocks the wallet's later transactions. Its
 * history says why once per wait (a PENDING → PENDING note, and its TransactionStatusChange
 * event); it is looked at again every block and goes out once fees fall. Null: nothing holds it.
 * Costs nothing for a transaction without a cap (no cap, nothing to hold under), and reads only
 * the chain view's shared market otherwise.
 */
export async function holdForFees(deps: StepDeps, { record: chain, view }: ChainHandle, tx: TransactionRecord): Promise<RunAgain | null> {
  if (tx.nonce !== null) return null;
  const caps = transactionCaps(chain, tx);
  if (caps.maxFeePerGasCapWei === null) return null;
  const market = await view.market();
  const cap = capBelowMarket(market, caps);
  if (cap === null) return null;
  const whose = tx.request.maxFeePerGasWei !== null && tx.request.maxFeePerGasWei <= (chain.maxFeePerGasCapWei ?? cap) ? "its maxFeePerGas" : "the chain's fee cap";
  await noteReasonOnce(
    deps,
    tx,
    "PENDING",
    HELD_FOR_FEES,
    `${HELD_FOR_FEES} ${whose} (${cap} wei per gas; the market asks ${market.floor ?? "more"} to be included now): waiting, unsigned and with no nonce taken, until fees fall`,
  );
  return runAgainIn(Math.max(chain.blockTimeMs, 1000));
}
