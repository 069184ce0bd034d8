import { AppError } from "@relay/core";
import { isUsable, type ChainRepository, type CreateResult, type NewTransaction, type SpendGuard, type TransactionRepository, type WalletRepository } from "@relay/db";
import { chooseWallet, hasWalletLimits, refuseCall, refuseSpend, refuseUnboundedGas, type CompiledPolicy } from "@relay/policies";

export interface PolicyGateDeps {
  transactions: Pick<TransactionRepository, "create">;
  spendGuard: Pick<SpendGuard, "createWithinLimits">;
  chains: Pick<ChainRepository, "findById">;
  wallets: Pick<WalletRepository, "listByProject">;
}

const forbidden = (message: string) => new AppError("FORBIDDEN", message);

/** The most a transaction can pay per gas: its own maxFeePerGas and the chain's cap, the lower of them; null when neither is set. */
const feeCeiling = (requested: bigint | null | undefined, chainCap: bigint | null): bigint | null => {
  if (requested == null) return chainCap;
  return chainCap === null || requested < chainCap ? requested : chainCap;
};

/**
 * Stores a send of a project that has a policy (docs/policies.md), or refuses it with a 403 that
 * names the policy and stores nothing. The allowlist and the value per transaction are checked
 * first; a project with daily limits per wallet then takes the guarded path: its wallet's spend
 * is checked and the transaction inserted under that wallet's lock (spend-guard.ts), and when the
 * request named no wallet, it is bound to the usable wallet with the most room.
 */
export function createPolicyGate(deps: PolicyGateDeps) {
  return {
    create: async (policy: CompiledPolicy, input: NewTransaction, selector: string): Promise<CreateResult> => {
      const valueWei = input.valueWei ?? 0n;
      const refusal = refuseCall(policy, { chainId: input.chainId, contractAddress: input.contractAddress, functionSignature: input.functionSignature, selector, valueWei });
      if (refusal) throw forbidden(refusal);
      if (!hasWalletLimits(policy)) return deps.transactions.create(input);

      let gasReservedWei: bigint | null = null;
      if (policy.gasPerWalletPerDayWei !== null) {
        const gasLimit = input.request?.gasLimit ?? null;
        if (gasLimit === null) throw forbidden(refuseUnboundedGas(policy, input.chainId, "gasLimit"));
        const chain = await deps.chains.findById(input.chainId);
        const ceiling = feeCeiling(input.request?.maxFeePerGasWei, chain?.maxFeePerGasCapWei ?? null);
        if (ceiling === null) throw forbidden(refuseUnboundedGas(policy, input.chainId, "maxFeePerGas"));
        gasReservedWei = gasLimit * ceiling;
      }

      const named = input.request?.fromAddress ?? null;
      const wallets = named !== null ? [named] : (await deps.wallets.listByProject(input.projectId)).filter(isUsable).map((w) => w.address);
      const need = { valueWei, gasWei: gasReservedWei ?? 0n };
      const result = await deps.spendGuard.createWithinLimits({ ...input, gasReservedWei }, wallets, (spends) => {
        const chosen = chooseWallet(policy, spends, need);
        return chosen ? { fromAddress: chosen.address } : { refused: refuseSpend(policy, input.chainId, spends, need, named !== null) };
      });
      if ("refused" in result) throw forbidden(result.refused);
      return result;
    },
  };
}

export type PolicyGate = ReturnType<typeof createPolicyGate>;
