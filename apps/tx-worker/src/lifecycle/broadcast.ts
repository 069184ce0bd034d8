import { AppError } from "@relay/core";
import { classifyRpcError } from "@relay/chain";
import type { JsonRpcProvider } from "ethers";
import type { AttemptRecord } from "@relay/db";

export type BroadcastOutcome =
  | { kind: "sent" }
  | { kind: "nonce-used" }
  | { kind: "insufficient-funds"; message: string }
  /** Refused on its fees: these bytes never will be taken; new ones with higher fees may. */
  | { kind: "underpriced"; message: string }
  /** Refused for good: neither these bytes nor any fee changes that (rpc-errors.ts, REJECTED). */
  | { kind: "rejected"; message: string };

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString("hex")}`;

/**
 * Hands stored signed bytes to the node. Sending the same bytes again is harmless, so every retry
 * rebroadcasts what was stored instead of signing anew. "Already known" means a previous try got
 * through; "nonce too low" means the nonce was used, by this attempt (the caller finds its
 * receipt) or by something else. A refusal on fees, or for good, is an outcome the caller acts on
 * (new fees, FAILED); only a node or network failing throws, to be retried.
 */
export async function broadcast(provider: JsonRpcProvider, attempt: Pick<AttemptRecord, "rawTransaction" | "hash">): Promise<BroadcastOutcome> {
  try {
    await provider.send("eth_sendRawTransaction", [hex(attempt.rawTransaction)]);
    return { kind: "sent" };
  } catch (e) {
    const refusal = classifyRpcError(e);
    switch (refusal.kind) {
      case "already-known":
        return { kind: "sent" };
      case "nonce-too-low":
        return { kind: "nonce-used" };
      case "insufficient-funds":
        return { kind: "insufficient-funds", message: refusal.message };
      case "underpriced":
        return { kind: "underpriced", message: refusal.message };
      case "rejected":
        return { kind: "rejected", message: refusal.message };
      case "transient":
        throw new AppError("UNAVAILABLE", `broadcast of ${attempt.hash} failed: ${refusal.message}`, { retryable: true, cause: e });
      case "reverted":
        throw new AppError("UNAVAILABLE", `node refused ${attempt.hash}: ${refusal.reason}`, { retryable: true, cause: e });
    }
  }
}
