import { randomUUID } from "node:crypto";
import { AppError, type Logger } from "@relay/core";
import type { ChainRepository } from "@relay/db";
import { jobIdOf, type CreateWalletResult, type Producer, type ResultWaiter } from "@relay/queue";
import type { CreateWalletRequest } from "../syndicate/wallets.schema";
import type { RequestContext } from "./request-context";

export interface CreateWalletDeps {
  chains: Pick<ChainRepository, "findById">;
  producer: Pick<Producer, "enqueue" | "discard">;
  /** Waits for the signing worker's createWallet jobs. */
  results: Pick<ResultWaiter, "expect">;
  /** How long the worker may take, from the enqueue to its answer. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * POST /wallet/create: the gateway holds no key-encryption key and never talks to an HSM or KMS,
 * so the signing worker generates the key in the backend asked for (the job names the backend
 * only), stores the wallet (storeWallet, as `wallets create` does) and answers the address. A
 * backend the worker is not configured for comes back as a refusal: a 400 with the worker's words.
 * A job not finished in time is removed unless a worker holds it already; the 500 then says the
 * wallet may still appear, as a whole record (never one without its key).
 */
export function createCreateWalletService(deps: CreateWalletDeps) {
  return {
    create: async (request: CreateWalletRequest, context: RequestContext = {}): Promise<{ projectId: string; walletAddress: string; backend: string }> => {
      if (!(await deps.chains.findById(BigInt(request.chainId)))) {
        throw new AppError("BAD_REQUEST", `chainId ${request.chainId} is not configured on this relay; an operator adds it with \`npm run relay -- chains add\``);
      }
      const payload = { v: 1 as const, projectId: request.projectId, walletId: randomUUID(), walletType: request.type ?? ("BROADCAST" as const), backend: request.backend ?? ("LOCAL" as const), reqId: context.reqId, keyId: context.keyId };
      // Waiting starts before the job exists, so a job that finishes at once cannot slip past.
      const finished = deps.results.expect(jobIdOf("createWallet", payload), deps.timeoutMs) as Promise<CreateWalletResult>;
      finished.catch(() => undefined);
      const job = await deps.producer.enqueue("createWallet", payload);
      let result: CreateWalletResult;
      try {
        result = await finished;
      } catch (e) {
        await deps.producer.discard(job).catch(() => undefined);
        deps.logger.warn({ err: e, projectId: request.projectId, walletId: payload.walletId }, "wallet creation not completed");
        throw new AppError(
          "INTERNAL",
          `Wallet creation did not complete within ${deps.timeoutMs} ms. If the signing worker finished it after all, the wallet (id ${payload.walletId}) is listed by GET /wallet/project/${request.projectId}/wallets; otherwise nothing was stored.`,
          { cause: e, details: { projectId: request.projectId } },
        );
      }
      if ("refused" in result) throw new AppError("BAD_REQUEST", result.refused);
      return { projectId: request.projectId, walletAddress: result.address, backend: result.backend };
    },
  };
}

export type CreateWalletService = ReturnType<typeof createCreateWalletService>;
