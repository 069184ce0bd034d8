import { randomUUID } from "node:crypto";
import { encodeCall, parseErrorSignatures, parseFunctionSignature } from "@relay/chain";
import { AppError, type Logger } from "@relay/core";
import { isUsable, type ChainRepository, type JsonValue, type NewTransaction, type TransactionRepository, type WalletRepository } from "@relay/db";
import type { CompiledPolicy } from "@relay/policies";
import type { Producer } from "@relay/queue";
import type { SendTransactionRequest } from "../routes/transactions.schema";
import type { PolicyGate } from "./policy-gate";
import type { RequestContext } from "./request-context";

export interface SendTransactionDeps {
  transactions: Pick<TransactionRepository, "create">;
  chains: Pick<ChainRepository, "findById">;
  wallets: Pick<WalletRepository, "listByProject">;
  producer: Pick<Producer, "enqueue">;
  logger: Logger;
  /** The project's policy (cached); absent: no policies (every send stored as it comes). */
  policies?: (projectId: string) => Promise<CompiledPolicy | null>;
  /** Stores the sends of projects with a policy, or refuses them (docs/policies.md). */
  policyGate?: Pick<PolicyGate, "create">;
  /** How long a chain or wallet lookup is reused. */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * A small read-through cache of facts that, once true, stay true (a chain is configured, a project
 * has a wallet): every request asks them. A "no" is not kept, so a chain or wallet an operator
 * adds with the CLI is usable by the very next request, without a restart.
 */
function cachedWhenTrue<K>(ttlMs: number, now: () => number, load: (key: K) => Promise<boolean>) {
  const entries = new Map<K, number>();
  return async (key: K): Promise<boolean> => {
    const at = entries.get(key);
    if (at !== undefined && now() - at < ttlMs) return true;
    const value = await load(key);
    if (entries.size > 10_000) entries.clear();
    if (value) entries.set(key, now());
    else entries.delete(key);
    return value;
  };
}

/** The contract's 409: the requestId names a transaction the project already has, whatever the body says. */
export const duplicateRequest = (transactionId: string): AppError =>
  new AppError("CONFLICT", `requestId ${transactionId} was already used for a transaction of this project`, { details: { transactionId } });

/**
 * sendTransaction: everything that can be wrong with a request is found here, before anything is
 * stored (the calldata is encoded now, so a bad argument is a 400 naming it; what the project's
 * policy refuses is a 403 naming the policy: policy-gate.ts). Accepted means
 * written to Postgres with its PENDING status and outbox event; the job is a delivery mechanism,
 * and the reconciler re-creates it if the enqueue below is lost.
 */
export function createSendTransactionService(deps: SendTransactionDeps) {
  const now = deps.now ?? Date.now;
  const ttl = deps.cacheTtlMs ?? 5000;
  const chainExists = cachedWhenTrue(ttl, now, async (chainId: bigint) => (await deps.chains.findById(chainId)) !== null);
  // Active wallets only: a project whose wallets are all deactivated or retired is told at once.
  const hasWallet = cachedWhenTrue(ttl, now, async (projectId: string) => (await deps.wallets.listByProject(projectId)).some(isUsable));

  /**
   * The wallet a request names in `fromAddress`, as stored: one of the project's, active and not
   * retired. Read only when a request names one (uncached: a wallet deactivated a moment ago is
   * refused now). Another project's wallet reads as any unknown address.
   */
  const projectWallet = async (projectId: string, address: string): Promise<string> => {
    const wallet = (await deps.wallets.listByProject(projectId)).find((w) => w.address.toLowerCase() === address.toLowerCase());
    if (!wallet) throw new AppError("BAD_REQUEST", `fromAddress ${address} is not a wallet of project ${projectId}`);
    if (!isUsable(wallet)) throw new AppError("BAD_REQUEST", `fromAddress ${address} is ${wallet.retiredAt ? "retired" : "not active"}; activate it or name another wallet`);
    return wallet.address;
  };

  return {
    /** `context.reqId`: the HTTP request's id, carried by the job for its log lines. */
    send: async (request: SendTransactionRequest, context: RequestContext = {}): Promise<{ transactionId: string }> => {
      const chainId = BigInt(request.chainId);
      if (!(await chainExists(chainId))) {
        throw new AppError("BAD_REQUEST", `chainId ${chainId} is not configured on this relay; an operator adds it with \`npm run relay -- chains add\``);
      }
      if (!(await hasWallet(request.projectId))) {
        throw new AppError(
          "BAD_REQUEST",
          `project ${request.projectId} has no active wallet to send from; create one (POST /wallet/create or \`npm run relay -- wallets create\`) or activate one (POST /wallet/toggleIsActive or \`npm run relay -- wallets activate\`)`,
        );
      }
      const fromAddress = request.fromAddress === undefined ? null : await projectWallet(request.projectId, request.fromAddress);
      const fragment = parseFunctionSignature(request.functionSignature);
      const encoded = encodeCall(fragment, request.args);
      const errorSignatures = request.errorSignatures && parseErrorSignatures(request.errorSignatures);

      const id = request.requestId ?? randomUUID();
      const input: NewTransaction = {
        projectId: request.projectId,
        id,
        chainId,
        contractAddress: request.contractAddress,
        functionSignature: fragment.format("full"),
        args: encoded.normalizedArgs as JsonValue,
        calldata: Buffer.from(encoded.calldata.slice(2), "hex"),
        ...(errorSignatures ? { errorSignatures } : {}),
        valueWei: request.value ?? 0n,
        request: {
          fromAddress,
          gasLimit: request.gasLimit === undefined ? null : BigInt(request.gasLimit),
          maxFeePerGasWei: request.maxFeePerGas ?? null,
          expiresAt: request.expiresAt ?? null,
        },
        apiKeyId: context.keyId ?? null,
      };
      const policy = deps.policies && deps.policyGate ? await deps.policies(request.projectId) : null;
      // A project with a policy is checked before anything is stored; one without takes the coalesced INSERT.
      const result = policy ? await deps.policyGate!.create(policy, input, fragment.selector) : await deps.transactions.create(input);
      if (!result.created) throw duplicateRequest(result.existingId);
      try {
        await deps.producer.enqueue("processTransaction", { v: 1, projectId: request.projectId, transactionId: id, reqId: context.reqId });
      } catch (e) {
        deps.logger.warn({ err: e, transactionId: id }, "enqueue failed; the reconciler will pick the transaction up");
      }
      return { transactionId: id };
    },
  };
}

export type SendTransactionService = ReturnType<typeof createSendTransactionService>;
