import { parseFunctionSignature } from "@relay/chain";
import type { Policy } from "./policy.schema";

/** The CLI command an operator runs, as refusals name it. */
const cli = (args: string): string => `\`npm run relay -- policies ${args}\``;

/** A policy in the form requests are checked against: selectors computed once, addresses lower-cased. */
export interface CompiledPolicy {
  projectId: string;
  /** Null: no allowlist. Else chain id → contract (lower case) → allowed selectors (null: any function). */
  contracts: Map<string, Map<string, Set<string> | null>> | null;
  valuePerTransactionWei: bigint | null;
  valuePerWalletPerDayWei: bigint | null;
  gasPerWalletPerDayWei: bigint | null;
}

const selectorOf = (ref: string): string => (/^0x[0-9a-fA-F]{8}$/.test(ref) ? ref.toLowerCase() : parseFunctionSignature(ref).selector);
const wei = (s: string | undefined): bigint | null => (s === undefined ? null : BigInt(s));

export function compilePolicy(projectId: string, policy: Policy): CompiledPolicy {
  const contracts = policy.contracts
    ? new Map(
        Object.entries(policy.contracts).map(([chainId, entries]) => {
          const byAddress = new Map<string, Set<string> | null>();
          for (const entry of entries) {
            const key = entry.address.toLowerCase();
            const previous = byAddress.get(key);
            // The same address listed twice allows what either entry allows.
            if (previous === null || entry.functions === undefined) byAddress.set(key, null);
            else byAddress.set(key, new Set([...(previous ?? []), ...entry.functions.map(selectorOf)]));
          }
          return [chainId, byAddress];
        }),
      )
    : null;
  return {
    projectId,
    contracts,
    valuePerTransactionWei: wei(policy.valuePerTransactionWei),
    valuePerWalletPerDayWei: wei(policy.valuePerWalletPerDayWei),
    gasPerWalletPerDayWei: wei(policy.gasPerWalletPerDayWei),
  };
}

/** What the policy looks at in a sendTransaction request, before anything is stored. */
export interface CallToCheck {
  chainId: bigint;
  contractAddress: string;
  /** The function as the gateway normalized it (ethers' full form) and its 4-byte selector. */
  functionSignature: string;
  selector: string;
  valueWei: bigint;
}

/**
 * The refusal message for a call the project's policy does not allow (allowlist, value per
 * transaction), or null when it may go on to the per-wallet limits. Each message names the policy,
 * the limit and the command that changes it.
 */
export function refuseCall(policy: CompiledPolicy, call: CallToCheck): string | null {
  const p = `--project ${policy.projectId}`;
  const chain = call.chainId.toString();
  if (policy.contracts) {
    const allowed = policy.contracts.get(chain);
    if (!allowed) {
      return `policy contracts: project ${policy.projectId}'s contract allowlist has no entry for chain ${chain}, so no contract may be called on it; an operator allows one with ${cli(`allow-contract ${p} --chain ${chain} --address ${call.contractAddress}`)}`;
    }
    const key = call.contractAddress.toLowerCase();
    if (!allowed.has(key)) {
      return `policy contracts: contract ${call.contractAddress} is not on project ${policy.projectId}'s allowlist for chain ${chain}; an operator allows it with ${cli(`allow-contract ${p} --chain ${chain} --address ${call.contractAddress}`)}`;
    }
    const selectors = allowed.get(key);
    if (selectors && !selectors.has(call.selector)) {
      const fn = call.functionSignature.replace(/^function /, "");
      return `policy contracts: function ${fn} (selector ${call.selector}) is not allowed on contract ${call.contractAddress} of chain ${chain}; an operator allows it with ${cli(`allow-contract ${p} --chain ${chain} --address ${call.contractAddress} --function "${fn}"`)}`;
    }
  }
  if (policy.valuePerTransactionWei !== null && call.valueWei > policy.valuePerTransactionWei) {
    return `policy valuePerTransactionWei: value ${call.valueWei} wei is above project ${policy.projectId}'s limit of ${policy.valuePerTransactionWei} wei per transaction; send less, or an operator raises it with ${cli(`limits ${p} --value-per-tx <wei>`)}`;
  }
  return null;
}

/** Whether the policy limits what a wallet spends in a rolling day (the sends that take the guarded path). */
export const hasWalletLimits = (policy: CompiledPolicy | null): policy is CompiledPolicy =>
  policy !== null && (policy.valuePerWalletPerDayWei !== null || policy.gasPerWalletPerDayWei !== null);

/** What a wallet spent on one chain in the last 24 hours (value sent, fees paid or reserved). */
export interface WalletSpend {
  address: string;
  valueWei: bigint;
  gasWei: bigint;
}

/** What one transaction adds to its wallet's spend: its value, and the most it can pay in fees. */
export interface SpendNeed {
  valueWei: bigint;
  gasWei: bigint;
}

/** How much a wallet can still spend today under the policy (null: no such limit). */
export const roomOf = (policy: CompiledPolicy, spend: WalletSpend) => ({
  valueWei: policy.valuePerWalletPerDayWei === null ? null : policy.valuePerWalletPerDayWei - spend.valueWei,
  gasWei: policy.gasPerWalletPerDayWei === null ? null : policy.gasPerWalletPerDayWei - spend.gasWei,
});

const fits = (room: bigint | null, need: bigint) => room === null || need <= room;

/**
 * The wallet with room for `need` under both daily limits, the one with the most value room left
 * (then gas room) among several: spreading a project's sends keeps each wallet under its limits
 * longest. Null when none has room.
 */
export function chooseWallet(policy: CompiledPolicy, spends: readonly WalletSpend[], need: SpendNeed): WalletSpend | null {
  const candidates = spends
    .map((spend) => ({ spend, room: roomOf(policy, spend) }))
    .filter(({ room }) => fits(room.valueWei, need.valueWei) && fits(room.gasWei, need.gasWei));
  candidates.sort((a, b) => compareRoom(b.room.valueWei, a.room.valueWei) || compareRoom(b.room.gasWei, a.room.gasWei) || a.spend.address.localeCompare(b.spend.address));
  return candidates[0]?.spend ?? null;
}

const compareRoom = (a: bigint | null, b: bigint | null): number => (a === null || b === null || a === b ? 0 : a < b ? -1 : 1);

/** The 403 message when no wallet has room: the limit, what is used and left, and the command that changes it. */
export function refuseSpend(policy: CompiledPolicy, chainId: bigint, spends: readonly WalletSpend[], need: SpendNeed, named: boolean): string {
  const p = `--project ${policy.projectId}`;
  // The limit the best wallet fails on: value first, then gas.
  const rooms = spends.map((spend) => ({ spend, room: roomOf(policy, spend) }));
  const valueShort = rooms.every(({ room }) => !fits(room.valueWei, need.valueWei));
  const which = valueShort ? "value" : "gas";
  const limit = valueShort ? policy.valuePerWalletPerDayWei! : policy.gasPerWalletPerDayWei!;
  const best = rooms
    .map(({ spend, room }) => ({ spend, left: (valueShort ? room.valueWei : room.gasWei) ?? 0n }))
    .sort((a, b) => (a.left === b.left ? 0 : a.left < b.left ? 1 : -1))[0];
  const left = best ? (best.left < 0n ? 0n : best.left) : 0n;
  const needed = valueShort ? need.valueWei : need.gasWei;
  const field = valueShort ? "valuePerWalletPerDayWei" : "gasPerWalletPerDayWei";
  const option = valueShort ? "--value-per-day" : "--gas-per-day";
  const what = valueShort ? `this transaction's value is ${needed} wei` : `this transaction can pay up to ${needed} wei in fees (gasLimit × max fee per gas)`;
  const where = named || spends.length === 1 ? `wallet ${best?.spend.address ?? "(none)"} on chain ${chainId} has` : `no wallet of the project on chain ${chainId} has room: the most any has is`;
  return `policy ${field}: ${where} ${left} wei left of its ${which} limit of ${limit} wei per rolling 24 hours, and ${what}; wait for earlier transactions to leave the 24-hour window${named ? ", send from another wallet" : ""}, or an operator raises the limit with ${cli(`limits ${p} ${option} <wei>`)}`;
}

/** The 403 when a project has a gas budget and the request gives no way to bound its fees. */
export const refuseUnboundedGas = (policy: CompiledPolicy, chainId: bigint, missing: "gasLimit" | "maxFeePerGas"): string =>
  `policy gasPerWalletPerDayWei: project ${policy.projectId} has a gas budget per wallet, so a transaction must say the most it can pay: pass ${missing === "gasLimit" ? "gasLimit" : "maxFeePerGas"} (gasLimit and maxFeePerGas${missing === "maxFeePerGas" ? `; chain ${chainId} has no fee cap to use instead` : ""}); or an operator removes the budget with ${cli(`limits --project ${policy.projectId} --gas-per-day none`)}`;
