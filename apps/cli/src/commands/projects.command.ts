import type { Command } from "commander";
import { AppError } from "@relay/core";
import type { ProjectRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { isUniqueViolation, usageError } from "../errors";
import { emit, formatDate, formatTable } from "../output";
import { withJson, type JsonOption } from "./options";

const view = (p: ProjectRecord) => ({ id: p.id, name: p.name, createdAt: p.createdAt });

export function registerProjectCommands(program: Command, deps: CliDeps): void {
  const projects = program.command("projects").description("create and list projects");

  withJson(projects.command("create").description("create a project").argument("<name>", "unique project name")).action(
    async (name: string, options: JsonOption) => {
      const trimmed = name.trim();
      if (trimmed === "" || trimmed.length > 200) throw usageError("A project name must be 1-200 characters");
      const project = await deps.audit
        .change(
          (r) => r.projects.create(trimmed),
          (p) => ({ action: "project.created", projectId: p.id, subject: p.id, details: { name: p.name } }),
        )
        .catch((e: unknown) => {
          if (!isUniqueViolation(e)) throw e;
          throw new AppError("CONFLICT", `A project named "${trimmed}" already exists: choose another name`, { cause: e });
        });
      emit(deps.output, options.json, view(project), () => `Created project ${project.name} (${project.id})`);
    },
  );

  withJson(projects.command("list").description("list projects")).action(async (options: JsonOption) => {
    const rows = await deps.projects.list();
    emit(deps.output, options.json, rows.map(view), () =>
      formatTable(
        rows,
        [
          { header: "ID", value: (p) => p.id },
          { header: "NAME", value: (p) => p.name },
          { header: "CREATED", value: (p) => formatDate(p.createdAt) },
        ],
        "No projects yet: create one with `npm run relay -- projects create <name>`",
      ),
    );
  });
}
