import { Router } from "express";
import type { TopUpRepository } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { parseOr } from "../middleware/validate";
import { toFundingTransaction } from "./funding.response";
import { fundingParams, fundingQuery } from "./funding.schema";

export interface FundingRoutesDeps {
  topUps: Pick<TopUpRepository, "listByFundedProject">;
}

/**
 * Syndicate's funding read (SDK `funding.getTransactionsByProjects`): the top-ups of a project's
 * wallets that managed gas sent (docs/funding.md), newest first.
 */
export function fundingRoutes(deps: FundingRoutesDeps): Router {
  const router = Router();
  router.get("/funding/project/:projectId/transactions", async (req, res) => {
    const { projectId } = parseOr(fundingParams, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const { page, limit } = parseOr(fundingQuery, req.query);
    const { total, topUps } = await deps.topUps.listByFundedProject(projectId, { limit, offset: page * limit });
    res.json({ transactions: topUps.map(toFundingTransaction), total });
  });
  return router;
}
