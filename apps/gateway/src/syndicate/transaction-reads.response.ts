import type { ParamType } from "ethers";
import { parseFunctionSignature } from "@relay/chain";
import type { AttemptReadRecord, JsonValue, RequestReadRecord } from "@relay/db";
import { attemptStatus, syndicateView } from "./syndicate-status";

/** Syndicate's TransactionResponse and TransactionAttempt from our records (docs/syndicate.md). */

/** `block`: the transaction's block for its current attempt once mined, else 0 (the field is required). */
function blockOf(a: AttemptReadRecord): number {
  return a.current && syndicateView(a.status).mined && a.blockNumber !== null ? Number(a.blockNumber) : 0;
}

export function toSyndicateAttempt(a: AttemptReadRecord) {
  return {
    transactionId: a.transactionId,
    hash: a.hash,
    chainId: Number(a.chainId),
    version: a.version,
    status: attemptStatus(a.status, a.current),
    block: blockOf(a),
    signedTxn: a.rawTransaction,
    walletAddress: a.fromAddress,
    reverted: a.current && syndicateView(a.status).reverted,
    nonce: Number(a.nonce),
    createdAt: a.createdAt.toISOString(),
    // The current attempt changes with its transaction; a superseded one last changed when the
    // attempt that superseded it was made.
    updatedAt: (a.current ? a.transactionUpdatedAt : (a.nextCreatedAt ?? a.transactionUpdatedAt)).toISOString(),
  };
}

/** A normalized value (tuples as arrays) keyed as Syndicate's `args` are: tuples as objects by component name. */
function decoded(type: ParamType, value: JsonValue): JsonValue {
  if (type.isArray() && Array.isArray(value)) return value.map((v) => decoded(type.arrayChildren, v));
  if (type.isTuple() && Array.isArray(value)) {
    return Object.fromEntries(type.components.map((c, i) => [c.name || String(i), decoded(c, value[i] ?? null)]));
  }
  return value;
}

/** The stored arguments keyed by parameter name (index when unnamed). */
export function decodedData(functionSignature: string, args: JsonValue): Record<string, JsonValue> {
  // Stored keyed already (not in parameter order): as it is.
  if (args !== null && typeof args === "object" && !Array.isArray(args)) return args;
  const values = Array.isArray(args) ? args : [];
  const inputs = parseFunctionSignature(functionSignature).inputs;
  return Object.fromEntries(inputs.map((input, i) => [input.name || String(i), decoded(input, values[i] ?? null)]));
}

export function toSyndicateTransaction(r: RequestReadRecord) {
  return {
    transactionId: r.id,
    chainId: Number(r.chainId),
    projectId: r.projectId,
    invalid: syndicateView(r.status).invalid,
    contractAddress: r.contractAddress,
    functionSignature: r.functionSignature,
    data: r.calldata,
    decodedData: decodedData(r.functionSignature, r.args),
    value: r.valueWei.toString(),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    transactionAttempts: r.attempts.map(toSyndicateAttempt),
  };
}
