import { Router } from "express";
import type { PolicyRepository } from "@relay/db";
import { projectIdParam } from "../http-schemas";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { parseOr } from "../middleware/validate";

export interface PolicyRoutesDeps {
  policies: Pick<PolicyRepository, "get">;
}

/**
 * GET the project's policy (docs/policies.md): what its sends are checked against. Read from the
 * table, not the gateway's cache, so it shows a change at once; sends see it within the cache's TTL.
 */
export function policyRoutes(deps: PolicyRoutesDeps): Router {
  const router = Router();
  router.get("/transact/project/:projectId/policy", async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const record = await deps.policies.get(projectId);
    res.json({ projectId, policy: record?.policy ?? null, updatedAt: record?.updatedAt.toISOString() ?? null });
  });
  return router;
}
