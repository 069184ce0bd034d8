import type { Database } from "../client";

export type ProjectDatabase = Pick<Database, "project">;

export interface ProjectRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export function createProjectRepository(db: ProjectDatabase) {
  return {
    create: (name: string): Promise<ProjectRecord> => db.project.create({ data: { name } }),
    list: (): Promise<ProjectRecord[]> => db.project.findMany({ orderBy: { createdAt: "asc" } }),
    findById: (id: string): Promise<ProjectRecord | null> => db.project.findUnique({ where: { id } }),
    findByName: (name: string): Promise<ProjectRecord | null> => db.project.findUnique({ where: { name } }),
  };
}

export type ProjectRepository = ReturnType<typeof createProjectRepository>;
