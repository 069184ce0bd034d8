import { classifyRpcError, maxGasCost } from "@relay/chain";
import { AppError } from "@relay/core";
import { toQuantity } from "ethers";
import type { TransactionRecord } from "@relay/db";
import { runAgainIn, type RunAgain } from "@relay/queue";
import { broadcast } from "./broadcast";
import { signAttempt } from "./sign-attempt";
import { chooseWallet } from "./wallet-choice";
import type { StepContext, StepDeps } from "./deps";

/** Gas limit headroom over the estimate: state can change between simulation and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * PENDING → SUBMITTED (or INVALID, PAUSED, FAILED). In order: wallet, simulation (no nonce is
 * taken for a call that reverts), nonce from Postgres, fees, signature, stored attempt, broadcast.
 * Every part is safe to run again after a crash: the nonce binding and the stored attempt are
 * reused, never replaced.
 */
export async function submit(deps: StepDeps, tx: TransactionRecord, { logger }: StepContext): Promise<RunAgain | "done"> {
  const { record: chain, provider, view } = await deps.chains.get(tx.chainId);
  const wallets = await deps.wallets.listByProject(tx.projectId);
  const wallet = tx.fromAddress ? wallets.find((w) => w.address === tx.fromAddress) : chooseWallet(wallets, tx.id);
  if (!wallet) throw new AppError("INTERNAL", `wallet ${tx.fromAddress} of transaction ${tx.id} no longer exists`);
  const data = `0x${Buffer.from(tx.calldata).toString("hex")}`;
  const pause = (reason: string, set = {}) =>
    deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "PAUSED", reason, set: { fromAddress: wallet.address, ...set } });

  let attempts = await deps.transactions.attempts(tx.projectId, tx.id);
  if (attempts.length === 0) {
    let estimate: bigint;
    try {
      // Against the latest block, named: nodes default to "pending", which some (anvil) build by
      // executing every transaction in their pool first (5 ms a call with 400 pending, against
      // 0.2 ms). The raw call (ethers maps its errors the same way): provider.estimateGas also
      // resolves and checksums both addresses on every call.
      estimate = BigInt(
        (await provider.send("eth_estimateGas", [
          { from: wallet.address, to: tx.contractAddress, data, value: toQuantity(tx.valueWei) },
          "latest",
        ])) as string,
      );
    } catch (e) {
      const refusal = classifyRpcError(e);
      if (refusal.kind === "reverted") {
        await deps.transactions.move(tx.projectId, tx.id, { from: "PENDING", to: "INVALID", reason: `simulation reverted: ${refusal.reason}` });
        return "done";
      }
      if (refusal.kind === "insufficient-funds") {
        await pause(`wallet ${wallet.address} cannot pay: ${refusal.message}`);
        return runAgainIn(chain.blockTimeMs);
      }
      throw new AppError("UNAVAILABLE", `simulation failed: ${refusal.kind === "transient" ? refusal.message : refusal.kind}`, { retryable: true, cause: e });
    }
    const gasLimit = (estimate * GAS_HEADROOM_PERCENT) / 100n;

    const binding = await deps.transactions.allocateNonce({
      projectId: tx.projectId,
      transactionId: tx.id,
      address: wallet.address,
      // The chain's count is a floor (the key used outside the relay); a block old is enough.
      chainPendingNonce: await view.pendingNonce(wallet.address),
    });
    if (!binding) return "done"; // moved on by another worker meanwhile
    const bound = { ...tx, fromAddress: binding.fromAddress, nonce: binding.nonce };

    const fees = await view.fees();
    // A block old: a wallet drained since is refused by the node at broadcast, and pauses there.
    const balance = await view.balance(binding.fromAddress);
    const needed = maxGasCost(fees, gasLimit) + tx.valueWei;
    if (balance < needed) {
      await pause(`wallet ${binding.fromAddress} holds ${balance} wei, needs up to ${needed} wei`, { nonce: binding.nonce, gasLimit });
      return runAgainIn(chain.blockTimeMs);
    }
    const walletId = binding.fromAddress === wallet.address ? wallet.id : (await deps.wallets.findByAddress(binding.fromAddress))?.id;
    if (!walletId) throw new AppError("INTERNAL", `wallet ${binding.fromAddress} no longer exists`);
    attempts = [await signAttempt(deps, bound, walletId, gasLimit, fees)];
    logger.info({ nonce: binding.nonce.toString(), from: binding.fromAddress, hash: attempts[0]!.hash }, "transaction signed");
  }

  const attempt = attempts[attempts.length - 1]!;
  const outcome = await broadcast(provider, attempt);
  if (outcome.kind === "insufficient-funds") {
    await pause(`wallet ${attempt.fromAddress} cannot pay: ${outcome.message}`, { nonce: attempt.nonce, gasLimit: attempt.gasLimit });
    return runAgainIn(chain.blockTimeMs);
  }
  // "nonce too low" after our own broadcast: following receipts decides whether it was ours.
  await deps.transactions.move(tx.projectId, tx.id, {
    from: "PENDING",
    to: "SUBMITTED",
    set: { fromAddress: attempt.fromAddress, nonce: attempt.nonce, gasLimit: attempt.gasLimit, hash: attempt.hash },
    markBroadcast: attempt.hash,
  });
  return runAgainIn(chain.blockTimeMs);
}
