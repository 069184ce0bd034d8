import { Router } from "express";
import { AppError, type Logger } from "@relay/core";
import type { TransactionControl, TransactionRecord } from "@relay/db";
import type { TransactionStatus } from "@relay/lifecycle";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds } from "../middleware/request-log";
import { parseOr } from "../middleware/validate";
import type { ReplacementRoom } from "../services/replacement-room";
import type { CancelResponse, SpeedUpResponse } from "./transaction-control.schema";
import { transactionParams } from "./transactions.schema";

export interface TransactionControlRoutesDeps {
  logger: Logger;
  control: TransactionControl;
  findById: (projectId: string, id: string) => Promise<TransactionRecord | null>;
  /** Makes the transaction's job run now (it acts on the request). */
  wake: (projectId: string, transactionId: string) => Promise<void>;
  /** Whether the fee caps leave room for a replacement (services/replacement-room.ts). */
  replacementRoom: (tx: TransactionRecord) => Promise<ReplacementRoom>;
}

const notFound = (projectId: string, id: string) => new AppError("NOT_FOUND", `No transaction ${id} in project ${projectId}`);

/**
 * POST …/cancel and …/speedUp (docs/transactions.md, "Cancelling and speeding up"). The gateway
 * has no keys: it records the request on the transaction (conditional UPDATEs: the status in
 * Postgres decides) and wakes the transaction's job; the tx-worker signs and sends what is needed.
 */
export function transactionControlRoutes(deps: TransactionControlRoutesDeps): Router {
  const router = Router();

  /** Waking is best effort: the job looks at the record again within a block anyway, and the reconciler revives a lost one. */
  const wake = async (projectId: string, transactionId: string): Promise<void> => {
    await deps.wake(projectId, transactionId).catch((err: unknown) => deps.logger.warn({ err, transactionId }, "could not wake the transaction's job; it acts on its next look"));
  };

  router.post("/transact/project/:projectId/transactions/:transactionId/cancel", async (req, res) => {
    const { projectId, transactionId } = parseOr(transactionParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const answer = (status: TransactionStatus, cancel: CancelResponse["cancel"]): void => void res.json({ transactionId, status, cancel } satisfies CancelResponse);

    const requested = await deps.control.requestCancel(projectId, transactionId);
    if (!requested) {
      const tx = await deps.findById(projectId, transactionId);
      if (!tx) throw notFound(projectId, transactionId);
      // Asked again once done: the same answer. Any other final status has nothing to cancel.
      if (tx.status === "CANCELLED") return answer("CANCELLED", "done");
      throw new AppError("CONFLICT", `Transaction ${transactionId} is ${tx.status}: a final transaction cannot be cancelled`);
    }
    if (requested.status !== "SUBMITTED" && (await deps.control.cancelUnsent(projectId, transactionId))) {
      deps.logger.info({ transactionId, from: requested.status }, "transaction cancelled before it was sent");
      return answer("CANCELLED", "done");
    }
    await wake(projectId, transactionId);
    const now = (await deps.findById(projectId, transactionId)) ?? requested;
    answer(now.status, now.status === "CANCELLED" ? "done" : "requested");
  });

  router.post("/transact/project/:projectId/transactions/:transactionId/speedUp", async (req, res) => {
    const { projectId, transactionId } = parseOr(transactionParams, req.params);
    linkLogIds(res, { transactionId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const requested = await deps.control.requestSpeedUp(projectId, transactionId);
    if (!requested) {
      const tx = await deps.findById(projectId, transactionId);
      if (!tx) throw notFound(projectId, transactionId);
      throw new AppError("CONFLICT", speedUpRefusal(tx));
    }
    // Capped: said now, from the records; the worker notes the same in the history and keeps the
    // attempt out there. Not capped: the worker replaces it (within the market's ceiling too).
    const room = await deps.replacementRoom(requested);
    await wake(projectId, transactionId);
    res.json({ transactionId, status: requested.status, speedUp: "requested", ...room } satisfies SpeedUpResponse);
  });

  return router;
}

/** Why a transaction that is not SUBMITTED, or whose cancel is asked for, is not sped up. */
function speedUpRefusal(tx: TransactionRecord): string {
  const id = tx.id;
  if (tx.status === "SUBMITTED") return `Transaction ${id} is being cancelled: a speed-up would replace the cancel`;
  if (tx.status === "PENDING") return `Transaction ${id} is PENDING: it is not sent yet, and goes out at the fees of the moment it is sent`;
  if (tx.status === "PAUSED") return `Transaction ${id} is PAUSED: its wallet cannot pay; it goes out at the fees of the moment it is sent once funded`;
  return `Transaction ${id} is ${tx.status}: a final transaction cannot be sped up`;
}
