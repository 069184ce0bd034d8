import { isError } from "ethers";
import { toError } from "@relay/core";

/**
 * What a node's refusal means for us. Nodes word these differently (geth, anvil, erigon, hosted
 * RPCs); ethers normalises some into codes, the rest is matched on the message.
 */
export type RpcRefusal =
  | { kind: "reverted"; reason: string }
  | { kind: "insufficient-funds"; message: string }
  | { kind: "nonce-too-low"; message: string }
  | { kind: "already-known"; message: string }
  | { kind: "underpriced"; message: string }
  | { kind: "transient"; message: string };

const messageOf = (e: unknown): string => {
  const error = toError(e) as Error & { shortMessage?: string; info?: { error?: { message?: string } } };
  return [error.info?.error?.message, error.shortMessage, error.message].filter(Boolean).join(" | ");
};

export function classifyRpcError(e: unknown): RpcRefusal {
  const message = messageOf(e);
  const lower = message.toLowerCase();
  if (isError(e, "INSUFFICIENT_FUNDS") || lower.includes("insufficient funds")) return { kind: "insufficient-funds", message };
  if (isError(e, "NONCE_EXPIRED") || lower.includes("nonce too low") || lower.includes("nonce has already been used")) {
    return { kind: "nonce-too-low", message };
  }
  if (lower.includes("already known") || lower.includes("known transaction") || lower.includes("already imported")) {
    return { kind: "already-known", message };
  }
  if (isError(e, "REPLACEMENT_UNDERPRICED") || lower.includes("underpriced")) return { kind: "underpriced", message };
  if (isError(e, "CALL_EXCEPTION") || lower.includes("execution reverted") || lower.includes("revert")) {
    return { kind: "reverted", reason: revertReason(e, message) };
  }
  return { kind: "transient", message };
}

/** The revert reason a person can read: Error(string) text, a panic code, or a custom error's data. */
function revertReason(e: unknown, message: string): string {
  if (isError(e, "CALL_EXCEPTION")) {
    if (e.reason) return e.reason;
    if (e.revert) return `${e.revert.name}(${e.revert.args.map(String).join(", ")})`;
    if (e.data && e.data !== "0x") return `reverted with custom error data ${e.data.slice(0, 202)}`;
    return "execution reverted without a reason";
  }
  return message;
}
