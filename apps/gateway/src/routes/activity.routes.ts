import { Router } from "express";
import type { z } from "zod";
import type { ProjectActivityRead } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { parseOr } from "../middleware/validate";
import { activityParams, activityQuery, type activityResponse } from "./activity.schema";

/** GET a project's activity over the last hour or day (the console's charts), from its records. */
export function activityRoutes(deps: { activity: ProjectActivityRead }): Router {
  const router = Router();

  router.get("/transact/project/:projectId/activity", async (req, res) => {
    const { projectId } = parseOr(activityParams, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const { window } = parseOr(activityQuery, req.query);
    const activity = await deps.activity(projectId, window ?? "hour");
    res.json({
      ...activity,
      buckets: activity.buckets.map((b) => ({ ...b, start: b.start.toISOString() })),
    } satisfies z.input<typeof activityResponse>);
  });

  return router;
}
