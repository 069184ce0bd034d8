import { AppError, createBatcher, toError, type BatcherOptions } from "@relay/core";
import type { Sql } from "../client";
import { ALLOCATE_NONCES, BINDING } from "./transaction.sql";

export interface NonceBinding {
  fromAddress: string;
  nonce: bigint;
  /** False when the transaction was already bound (a retry): use this binding, take no new nonce. */
  allocated: boolean;
}

export interface NonceRequest {
  projectId: string;
  transactionId: string;
  /** A wallet of the transaction's project, checksummed like wallet.address. */
  address: string;
  /** The chain's pending nonce of the wallet: nonces start there when the counter is behind it. */
  chainPendingNonce: bigint;
}

const UNIQUE_VIOLATION = "23505";
const codeOf = (e: unknown): string | undefined => (toError(e) as { code?: string }).code;

/**
 * Nonces from Postgres, never from a node (DESIGN.md): ALLOCATE_NONCES binds each wallet's next
 * nonces to PENDING transactions. With `coalesce`, the allocations of concurrent jobs share one
 * statement and one commit (each wallet's counter is locked once for all its transactions of the
 * batch, instead of once per transaction, each waiting for the last one's commit).
 */
export function createNonceAllocation(sql: Sql, coalesce?: BatcherOptions) {
  const allocateMany = async (requests: readonly NonceRequest[]): Promise<({ fromAddress: string; nonce: bigint } | null)[]> => {
    const { rows } = await sql
      .query<{ projectId: string; id: string; fromAddress: string; nonce: string }>({ name: "transaction.allocateNonces", text: ALLOCATE_NONCES }, [
        requests.map((r) => r.projectId),
        requests.map((r) => r.transactionId),
        requests.map((r) => r.address),
        requests.map((r) => r.chainPendingNonce.toString()),
      ])
      .catch((e: unknown) => {
        if (codeOf(e) !== UNIQUE_VIOLATION) throw e;
        throw new AppError("INTERNAL", `a wallet's nonce counter is behind a nonce already bound; reconcile it`, { cause: toError(e) });
      });
    const bound = new Map(rows.map((row) => [`${row.projectId}/${row.id}`, { fromAddress: row.fromAddress, nonce: BigInt(row.nonce) }]));
    return requests.map((r) => {
      const key = `${r.projectId.toLowerCase()}/${r.transactionId.toLowerCase()}`;
      const binding = bound.get(key) ?? null;
      bound.delete(key); // a transaction named twice: the second finds it bound
      return binding;
    });
  };

  /** A batch refused as a whole (one wallet's counter behind) is tried again one by one, so only that wallet's transactions fail. */
  const allocateBatch = async (requests: readonly NonceRequest[]) => {
    try {
      return await allocateMany(requests);
    } catch (e) {
      if (requests.length === 1) throw e;
      return Promise.all(requests.map((r) => allocateMany([r]).then((b) => b[0]!, toError)));
    }
  };
  const allocateOne = coalesce ? createBatcher(allocateBatch, coalesce) : async (r: NonceRequest) => (await allocateMany([r]))[0]!;

  return {
    /**
     * Binds the wallet's next nonce to a PENDING transaction, or returns the binding it already
     * has. Null when the transaction does not exist or is no longer PENDING without a binding.
     */
    allocateNonce: async (request: NonceRequest): Promise<NonceBinding | null> => {
      const bound = await allocateOne(request);
      if (bound) return { ...bound, allocated: true };

      const existing = (
        await sql.query<{ fromAddress: string | null; nonce: string | null; walletOfProject: boolean }>({ name: "transaction.binding", text: BINDING }, [
          request.projectId,
          request.transactionId,
          request.address,
        ])
      ).rows[0];
      if (!existing) return null;
      if (existing.fromAddress !== null && existing.nonce !== null) {
        return { fromAddress: existing.fromAddress, nonce: BigInt(existing.nonce), allocated: false };
      }
      if (!existing.walletOfProject) {
        throw new AppError("INTERNAL", `${request.address} is not a wallet of project ${request.projectId}`);
      }
      return null;
    },
  };
}
