import { Router } from "express";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { jobCatalog, type JobName, type Producer } from "@relay/queue";
import { adminAuth } from "../middleware/admin-auth";

export const ADMIN_QUEUES_PATH = "/admin/queues";

export interface AdminQueuesDeps {
  /** The catalog's queues, with the configured prefix. */
  queue: Producer["queue"];
  adminToken: string;
}

/**
 * The queue dashboard (Bull Board) of every queue in the job catalog, behind the admin token.
 * Job payloads are ids only (packages/queue catalog), so the dashboard shows no secret. It can
 * retry, promote, remove jobs and pause queues: Postgres stays the source of truth, and the
 * reconcilers re-create a removed transaction or delivery job (docs/metrics.md).
 */
export function adminQueuesRoutes(deps: AdminQueuesDeps): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: (Object.keys(jobCatalog) as JobName[]).map((name) => new BullMQAdapter(deps.queue(name))),
    serverAdapter,
    options: { uiConfig: { boardTitle: "relay queues" } },
  });
  const router = Router();
  router.use(ADMIN_QUEUES_PATH, adminAuth(deps.adminToken), serverAdapter.getRouter());
  return router;
}
