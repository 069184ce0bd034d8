import { classifyRpcError, maxGasCost, type Fees } from "@relay/chain";
import { AppError } from "@relay/core";
import type { TransactionRecord } from "@relay/db";
import { toQuantity, type JsonRpcProvider } from "ethers";
import type { ChainView } from "../chain/chain-view";

/** Gas limit headroom over the estimate: state can change between simulation and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;
/** The most gas one transaction may carry on chains with EIP-7825 (Osaka): 2^24. */
const TX_GAS_CAP = 1n << 24n;

/**
 * The estimate with its headroom, as far as it fits: a limit above the block's (or above 2^24,
 * the per-transaction cap of EIP-7825) is refused by the node for good, so a call that fits but
 * whose 20 % headroom does not ended FAILED. Never below the estimate itself: a call that needs
 * more than a block is the node's to refuse. An estimate above 2^24 says the chain has no such
 * cap (a node that enforces it estimates no more): its headroom is bounded by the block alone, as
 * on L2s that count their L1 data in gas.
 */
export function withHeadroom(estimate: bigint, blockGasLimit: bigint): bigint {
  const padded = (estimate * GAS_HEADROOM_PERCENT) / 100n;
  const ceiling = blockGasLimit < TX_GAS_CAP || estimate > TX_GAS_CAP ? blockGasLimit : TX_GAS_CAP;
  if (padded <= ceiling) return padded;
  return estimate > ceiling ? estimate : ceiling;
}

interface Sender {
  id: string;
  address: string;
}

export type SenderChoice<W extends Sender> =
  | { kind: "chosen"; wallet: W; gasLimit: bigint; fees: Fees }
  /** The call reverts: INVALID, no nonce taken. */
  | { kind: "reverted"; reason: string }
  /** No candidate can pay; `wallet` is the preferred one, which the transaction waits for. */
  | { kind: "unfunded"; wallet: W; reason: string; gasLimit: bigint | null };

type Simulation = { kind: "estimate"; estimate: bigint } | { kind: "reverted"; reason: string } | { kind: "insufficient-funds"; message: string };

/**
 * Simulates the call from `from` with `eth_estimateGas` against the latest block, named: nodes
 * default to "pending", which some (anvil) build by executing every transaction in their pool first
 * (5 ms a call with 400 pending, against 0.2 ms). The raw call: provider.estimateGas also resolves
 * and checksums both addresses on every call (ethers maps the errors the same way).
 */
async function simulate(provider: JsonRpcProvider, tx: TransactionRecord, from: string, data: string): Promise<Simulation> {
  try {
    const estimate = BigInt((await provider.send("eth_estimateGas", [{ from, to: tx.contractAddress, data, value: toQuantity(tx.valueWei) }, "latest"])) as string);
    return { kind: "estimate", estimate };
  } catch (e) {
    const refusal = classifyRpcError(e);
    if (refusal.kind === "reverted") return { kind: "reverted", reason: refusal.reason };
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
export async function chooseSender<W extends Sender>(view: ChainView, provider: JsonRpcProvider, tx: TransactionRecord, candidates: readonly W[]): Promise<SenderChoice<W>> {
  const data = `0x${Buffer.from(tx.calldata).toString("hex")}`;
  let fees: Fees | undefined;
  let waitFor: { wallet: W; reason: string; gasLimit: bigint | null } | undefined;
  for (const [i, wallet] of candidates.entries()) {
    if (i > 0 && (await view.balance(wallet.address)) <= tx.valueWei) continue;
    const simulation = await simulate(provider, tx, wallet.address, data);
    if (simulation.kind === "reverted") return { kind: "reverted", reason: `simulation reverted: ${simulation.reason}` };
    if (simulation.kind === "insufficient-funds") {
      waitFor ??= { wallet, reason: `wallet ${wallet.address} cannot pay: ${simulation.message}`, gasLimit: null };
      continue;
    }
    fees ??= await view.fees();
    const gasLimit = withHeadroom(simulation.estimate, await view.blockGasLimit());
    const needed = maxGasCost(fees, gasLimit) + tx.valueWei;
    // A block old: a wallet drained since is refused by the node at broadcast, and pauses there.
    const balance = await view.balance(wallet.address);
    if (balance >= needed) return { kind: "chosen", wallet, gasLimit, fees };
    waitFor ??= { wallet, reason: `wallet ${wallet.address} holds ${balance} wei, needs up to ${needed} wei`, gasLimit };
  }
  const preferred = waitFor?.wallet ?? candidates[0]!;
  const reason = waitFor?.reason ?? `wallet ${preferred.address} cannot pay`;
  return { kind: "unfunded", wallet: preferred, reason: candidates.length > 1 ? `${reason}; no other wallet of the project can pay either` : reason, gasLimit: waitFor?.gasLimit ?? null };
}
