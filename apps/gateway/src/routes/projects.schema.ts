import { z } from "zod";

/** GET /transact/projects: the projects the credential reads. */
export const projectsResponse = z
  .object({
    projects: z
      .array(
        z.object({
          projectId: z.uuid(),
          name: z.string(),
          createdAt: z.iso.datetime(),
        }),
      )
      .meta({ description: "An API key's own project; for the operator's ADMIN_TOKEN, every project (oldest first, at most 1000)" }),
  })
  .meta({ id: "Projects" });
