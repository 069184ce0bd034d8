import { classifyRpcError, isMissingPastState, maxGasCost, type BlockTag, type ChainView, type Fees } from "@relay/chain";
import { AppError } from "@relay/core";
import type { TransactionRecord, TransactionRepository } from "@relay/db";
import { toQuantity } from "ethers";
import { withHeadroom } from "./gas-limit";
import { revertReason } from "./revert-reason";
import { feesFor } from "./fee-caps";
import { sizeGasInOrder, type WalletCall } from "./size-gas-in-order";

interface Sender {
  id: string;
  address: string;
}

export type SenderChoice<W extends Sender> =
  /** `at`: the block the gas limit was estimated against. */
  | { kind: "chosen"; wallet: W; gasLimit: bigint; fees: Fees; at: BlockTag }
  /** The call reverts: INVALID, no nonce taken. `revertData`: 0x-hex, null when the node gave none. */
  | { kind: "reverted"; reason: string; revertData: string | null }
  /** No candidate can pay; `wallet` is the preferred one, which the transaction waits for. */
  | { kind: "unfunded"; wallet: W; reason: string; gasLimit: bigint | null };

type Simulation = { kind: "sized"; gasLimit: bigint; at: BlockTag } | { kind: "reverted"; reason: string; data: string | null } | { kind: "insufficient-funds"; message: string };

type CallsAhead = Pick<TransactionRepository, "callsAhead">;

const estimateGas = async (view: ChainView, call: WalletCall, at: BlockTag): Promise<bigint> =>
  BigInt((await view.provider.send("eth_estimateGas", [{ ...call, value: toQuantity(call.value) }, at === "latest" ? at : toQuantity(at)])) as string);

/**
 * Simulates the call from `from` with `eth_estimateGas` against the head block this worker shares,
 * named by number: nodes default to "pending", which some (anvil) build by executing every
 * transaction in their pool first (5 ms a call with 400 pending, against 0.2 ms), and the block is
 * what the gas limit is then checked against after the wallet's transactions in flight
 * (size-gas-in-order.ts). A node that keeps no past state is asked for the latest. The raw call:
 * provider.estimateGas also resolves and checksums both addresses on every call (ethers maps the
 * errors the same way). A call that reverts there may succeed once the wallet's transactions
 * still in flight are mined (an approval before the call that spends it): it is run after them
 * before it is called reverted.
 */
async function simulate(view: ChainView, ahead: CallsAhead, tx: TransactionRecord, from: string, data: string): Promise<Simulation> {
  const call = { from, to: tx.contractAddress, data, value: tx.valueWei };
  let at: BlockTag = "latest";
  try {
    at = await view.head();
    const estimate = await estimateGas(view, call, at).catch((e: unknown) => {
      if (!isMissingPastState(e)) throw e;
      at = "latest";
      return estimateGas(view, call, at);
    });
    // A gas limit the request gave is signed as it is: simulated above only to find a revert.
    return { kind: "sized", gasLimit: tx.request.gasLimit ?? withHeadroom(estimate, await view.blockGasLimit()), at };
  } catch (e) {
    const refusal = classifyRpcError(e);
    if (refusal.kind === "reverted") {
      const inOrder = await sizeGasInOrder(ahead, view, call, tx, null, null, at);
      return inOrder?.kind === "sized" ? { kind: "sized", gasLimit: tx.request.gasLimit ?? inOrder.gasLimit, at } : { kind: "reverted", reason: refusal.reason, data: refusal.data };
    }
    if (refusal.kind === "insufficient-funds") return { kind: "insufficient-funds", message: refusal.message };
    throw new AppError("UNAVAILABLE", `simulation failed: ${refusal.kind === "transient" ? refusal.message : refusal.kind}`, { retryable: true, cause: e });
  }
}

/**
 * The wallet a new transaction is sent from: the first of `candidates` (in the transaction's
 * wallet order) that can pay for it, simulated from that wallet before any nonce is taken. In the
 * usual case that is the preferred wallet: one simulation and one balance read (shared per block).
 * A candidate after the first is only simulated when its balance is above the call's value, so an
 * empty wallet costs a shared balance read, not an RPC call per transaction.
 */
export async function chooseSender<W extends Sender>(
  view: ChainView,
  ahead: CallsAhead,
  tx: TransactionRecord,
  candidates: readonly W[],
): Promise<SenderChoice<W>> {
  const data = `0x${Buffer.from(tx.calldata).toString("hex")}`;
  let fees: Fees | undefined;
  let waitFor: { wallet: W; reason: string; gasLimit: bigint | null } | undefined;
  for (const [i, wallet] of candidates.entries()) {
    if (i > 0 && (await view.balance(wallet.address)) <= tx.valueWei) continue;
    const simulation = await simulate(view, ahead, tx, wallet.address, data);
    if (simulation.kind === "reverted") {
      return { kind: "reverted", reason: `simulation reverted: ${revertReason(tx, simulation.data, simulation.reason)}`, revertData: simulation.data };
    }
    if (simulation.kind === "insufficient-funds") {
      waitFor ??= { wallet, reason: `wallet ${wallet.address} cannot pay: ${simulation.message}`, gasLimit: null };
      continue;
    }
    fees ??= await feesFor(view, tx);
    const { gasLimit, at } = simulation;
    const needed = maxGasCost(fees, gasLimit) + tx.valueWei;
    // A block old: a wallet drained since is refused by the node at broadcast, and pauses there.
    const balance = await view.balance(wallet.address);
    if (balance >= needed) return { kind: "chosen", wallet, gasLimit, fees, at };
    waitFor ??= { wallet, reason: `wallet ${wallet.address} holds ${balance} wei, needs up to ${needed} wei`, gasLimit };
  }
  const preferred = waitFor?.wallet ?? candidates[0]!;
  const reason = waitFor?.reason ?? `wallet ${preferred.address} cannot pay`;
  return { kind: "unfunded", wallet: preferred, reason: candidates.length > 1 ? `${reason}; no other wallet of the project can pay either` : reason, gasLimit: waitFor?.gasLimit ?? null };
}
