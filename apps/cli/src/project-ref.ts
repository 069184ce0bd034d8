import { AppError } from "@relay/core";
import type { ProjectRecord, ProjectRepository } from "@relay/db";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/**
 * `--project` takes an id or a name. A value shaped like a UUID is looked up as an id first and
 * then as a name, so a project that happens to be named like a UUID is still reachable.
 */
export async function resolveProject(projects: ProjectRepository, ref: string): Promise<ProjectRecord> {
  const byId = isUuid(ref) ? await projects.findById(ref.toLowerCase()) : null;
  const project = byId ?? (await projects.findByName(ref));
  if (!project) {
    throw new AppError(
      "NOT_FOUND",
      `No project with id or name "${ref}": run \`npm run relay -- projects list\` to see them, or \`npm run relay -- projects create <name>\``,
    );
  }
  return project;
}
