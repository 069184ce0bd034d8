import { Router } from "express";
import type { z } from "zod";
import type { ProjectRecord, ProjectRepository } from "@relay/db";
import { principalOf } from "../middleware/auth";
import type { projectsResponse } from "./projects.schema";

/** Most projects one answer lists (the operator's view; a key has one). */
export const MAX_PROJECTS = 1000;

const view = (p: ProjectRecord) => ({ projectId: p.id, name: p.name, createdAt: p.createdAt.toISOString() });

/**
 * GET the projects the credential reads: a key's own (so a client holding only the key learns its
 * project id), every project for the operator's ADMIN_TOKEN (the console's project picker).
 */
export function projectRoutes(deps: { projects: Pick<ProjectRepository, "list" | "findById"> }): Router {
  const router = Router();

  router.get("/transact/projects", async (_req, res) => {
    const principal = principalOf(res.locals);
    const projects = principal.operator ? (await deps.projects.list()).slice(0, MAX_PROJECTS) : [await deps.projects.findById(principal.projectId)].filter((p) => p !== null);
    res.json({ projects: projects.map(view) } satisfies z.input<typeof projectsResponse>);
  });

  return router;
}
