import { randomUUID } from "node:crypto";
import type { Database } from "@relay/db";
import { createCliHarness, openTestDatabase } from "../cli-harness";

interface ProjectView {
  id: string;
  name: string;
  createdAt: string;
}

describe("relay projects", () => {
  let db: Database;
  let cli: ReturnType<typeof createCliHarness>;

  beforeAll(() => {
    db = openTestDatabase();
    cli = createCliHarness(db);
  });
  afterAll(() => db.$disconnect());

  it("creates a project and lists it", async () => {
    const name = `acme-${randomUUID()}`;
    const created = await cli.json<ProjectView>("projects", "create", name);
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name, createdAt: expect.any(String) });

    const listed = await cli.json<ProjectView[]>("projects", "list");
    expect(listed).toContainEqual(created);
  });

  it("refuses a duplicate name with one line saying what to do", async () => {
    const name = `dup-${randomUUID()}`;
    await cli.json("projects", "create", name);
    expect(await cli.fails("projects", "create", name)).toBe(`error: A project named "${name}" already exists: choose another name`);
  });

  it("prints a table for people", async () => {
    const name = `table-${randomUUID()}`;
    await cli.json("projects", "create", name);
    const { code, stdout } = await cli.run("projects", "list");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+CREATED$/);
    expect(stdout).toContain(name);
  });

  it("rejects an empty name", async () => {
    expect(await cli.fails("projects", "create", "  ")).toMatch(/name must be 1-200 characters/);
  });

  it("reports commander usage errors with exit code 1", async () => {
    const result = await cli.run("projects", "create");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/missing required argument 'name'/);
  });
});
