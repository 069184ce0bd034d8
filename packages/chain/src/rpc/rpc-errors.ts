import { AbiCoder, isError } from "ethers";
import { toError } from "@relay/core";

/**
 * What a node's refusal means for us. Nodes word these differently (geth, anvil, erigon, hosted
 * RPCs); ethers normalises some into codes, the rest is matched on the message.
 */
export type RpcRefusal =
  /** `data`: the revert data, 0x-hex ("0x": none); null when the node did not give it. */
  | { kind: "reverted"; reason: string; data: string | null }
  | { kind: "insufficient-funds"; message: string }
  | { kind: "nonce-too-low"; message: string }
  | { kind: "already-known"; message: string }
  | { kind: "underpriced"; message: string }
  | { kind: "rejected"; message: string }
  | { kind: "transient"; message: string };

/**
 * A node's refusal of signed bytes on their fees: below the pool's minimum, below the block's base
 * fee (geth "max fee per gas less than block base fee", anvil the same with code -32003, erigon
 * "fee cap less than block base fee"), or not enough above the transaction it would replace. New
 * bytes with higher fees at the same nonce are the answer; the same bytes never will be.
 */
const UNDERPRICED = /underpriced|less than block base fee|fee ?cap (too low|less than)|max fee per gas less than|gas price too low|fee ?too ?low/;

/**
 * A node's refusal of signed bytes that no retry of them, and no higher fee, changes: a gas limit
 * above the block's (geth "exceeds block gas limit", anvil "tx.gas_limit > env.block.gas_limit")
 * or above EIP-7825's per-transaction cap (geth "transaction gas limit too high", anvil
 * "tx.gas_limit > env.cfg.tx_gas_limit_cap" or "… is greater than the cap"),
 * below the intrinsic gas, a fee above the node's RPC cap (geth "tx fee (…) exceeds the configured
 * cap"), data too large, a wrong chain id. Matched on wording only these: anything unknown stays
 * transient.
 */
const REJECTED =
  /exceeds block gas limit|gas_limit > env\.block\.gas_limit|gas_limit > env\.cfg\.tx_gas_limit_cap|gas limit too high|is greater than the cap|intrinsic gas too (low|high)|exceeds the configured cap|oversized data|invalid chain ?id|chain ?id mismatch|only replay-protected/;

const messageOf = (e: unknown): string => {
  const error = toError(e) as Error & { shortMessage?: string; info?: { error?: { message?: string } } };
  return [error.info?.error?.message, error.shortMessage, error.message].filter(Boolean).join(" | ");
};

/**
 * A call the EVM ran and that reverted: revert data, JSON-RPC code 3 (geth's and anvil's
 * "execution reverted"), or a node message that starts so. Decided before any wording below is
 * looked at: a revert's reason is the contract's own text ("ERC20: insufficient funds", "Permit:
 * nonce too low") and says nothing about the node, the wallet or the fees.
 */
function isRevert(e: unknown): boolean {
  if (isError(e, "CALL_EXCEPTION") && e.data && e.data !== "0x") return true;
  // Read from the node's answer, not from ethers' code: ethers itself maps a simulation by its
  // wording, so a revert whose reason says "nonce too low" comes as NONCE_EXPIRED.
  const rpc = nodeErrorOf(e);
  return rpc?.code === 3 || (typeof rpc?.message === "string" && REVERTED.test(rpc.message));
}

const REVERTED = /^\s*execution reverted\b:?\s*/i;

/** The JSON-RPC error object the node answered, as ethers keeps it (`info.error`). */
const nodeErrorOf = (e: unknown): { code?: unknown; message?: unknown; data?: unknown } | undefined =>
  (e as { info?: { error?: { code?: unknown; message?: unknown; data?: unknown } } } | null)?.info?.error;

/** How nodes say they do not keep the state of a past block (geth, erigon, hosted RPCs). */
const NO_PAST_STATE = /missing trie node|historical state|state (is )?not available|pruned|archive/i;

/** A node's refusal to answer for a past block's state: it keeps only the latest. */
export const isMissingPastState = (e: unknown): boolean => NO_PAST_STATE.test(messageOf(e));

export function classifyRpcError(e: unknown): RpcRefusal {
  const message = messageOf(e);
  if (isRevert(e)) return { kind: "reverted", reason: revertReason(e, message), data: revertDataOf(e) };
  // Nethermind before 1.31 words refusals as its enum names ("InsufficientFunds, Account balance:
  // …", "AlreadyKnown", "FeeTooLow"): spaces are dropped before these look-ups.
  const lower = message.toLowerCase();
  const words = lower.replace(/[\s_]+/g, "");
  if (isError(e, "INSUFFICIENT_FUNDS") || words.includes("insufficientfunds")) return { kind: "insufficient-funds", message };
  if (isError(e, "NONCE_EXPIRED") || words.includes("noncetoolow") || lower.includes("nonce has already been used")) {
    return { kind: "nonce-too-low", message };
  }
  if (words.includes("alreadyknown") || lower.includes("known transaction") || lower.includes("already imported")) {
    return { kind: "already-known", message };
  }
  if (isError(e, "REPLACEMENT_UNDERPRICED") || UNDERPRICED.test(lower)) return { kind: "underpriced", message };
  if (REJECTED.test(lower)) return { kind: "rejected", message };
  if (isError(e, "CALL_EXCEPTION") && isServerFault(e)) return { kind: "transient", message };
  if (isError(e, "CALL_EXCEPTION") || lower.includes("execution reverted") || lower.includes("revert")) {
    return { kind: "reverted", reason: revertReason(e, message), data: revertDataOf(e) };
  }
  return { kind: "transient", message };
}

/**
 * A revert's raw data as the node answered it: ethers' `data`, else the node's error's. A node
 * that says only "execution reverted", with nothing after it and no data, reverted without data
 * ("0x"); one that gives words but no data leaves it unknown (null).
 */
function revertDataOf(e: unknown): string | null {
  if (isError(e, "CALL_EXCEPTION") && typeof e.data === "string") return e.data;
  const rpc = nodeErrorOf(e);
  if (typeof rpc?.data === "string" && /^0x([0-9a-f]{2})*$/i.test(rpc.data)) return rpc.data;
  return typeof rpc?.message === "string" && /^\s*execution reverted\s*$/i.test(rpc.message) ? "0x" : null;
}

/** JSON-RPC codes of a node or provider failing, not the call: internal error, resource unavailable, limit exceeded. */
const SERVER_FAULT_CODES = new Set([-32603, -32002, -32005]);
const SERVER_FAULT_TEXT = /internal error|rate limit|too many requests|limit exceeded|header not found|timed? ?out|unavailable|try again|busy/i;

/**
 * ethers reports every JSON-RPC error of eth_call / eth_estimateGas as CALL_EXCEPTION, also a
 * provider's "internal error" or rate limit, which says nothing about the call: without this
 * check a flaky RPC made a good transaction INVALID. Revert data or revert wording always means
 * the call failed; a recognised server fault otherwise is transient.
 */
function isServerFault(e: { data?: string | null; info?: Record<string, unknown> }): boolean {
  if (e.data && e.data !== "0x") return false;
  const rpc = e.info?.error as { code?: unknown; message?: unknown } | undefined;
  const text = typeof rpc?.message === "string" ? rpc.message : "";
  if (/revert/i.test(text)) return false;
  return (typeof rpc?.code === "number" && SERVER_FAULT_CODES.has(rpc.code)) || SERVER_FAULT_TEXT.test(text);
}

/** The revert reason a person can read: Error(string) text, a panic code, or a custom error's data. */
function revertReason(e: unknown, message: string): string {
  if (isError(e, "CALL_EXCEPTION")) {
    if (e.reason) return e.reason;
    if (e.revert) return `${e.revert.name}(${e.revert.args.map(String).join(", ")})`;
    if (e.data && e.data !== "0x") return `reverted with custom error data ${e.data.slice(0, 202)}`;
    return "execution reverted without a reason";
  }
  // A revert ethers gave another code (see isRevert): its data decoded as ethers decodes a
  // simulation's, else the node's words after "execution reverted".
  const rpc = nodeErrorOf(e);
  if (typeof rpc?.data === "string" && rpc.data !== "0x") {
    return revertReason(AbiCoder.getBuiltinCallException("estimateGas", {}, rpc.data), message);
  }
  if (typeof rpc?.message === "string" && REVERTED.test(rpc.message)) return rpc.message.replace(REVERTED, "") || "execution reverted without a reason";
  return message;
}
