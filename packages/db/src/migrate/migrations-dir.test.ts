import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { resolveMigrationsDir } from "./migrations-dir";

describe("resolveMigrationsDir", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), "migrations-dir-"));
    mkdirSync(path.join(root, "prisma", "migrations"), { recursive: true });
    mkdirSync(path.join(root, "apps", "gateway", "dist"), { recursive: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds the repository's folder from the sources", () => {
    expect(resolveMigrationsDir()).toBe(path.resolve(__dirname, "../../../../prisma/migrations"));
  });

  it("finds the folder above a bundle at another depth", () => {
    expect(resolveMigrationsDir(path.join(root, "apps", "gateway", "dist"))).toBe(path.join(root, "prisma", "migrations"));
  });

  it("says where it looked when there is none", () => {
    expect(() => resolveMigrationsDir(tmpdir())).toThrow(/no prisma\/migrations folder/);
  });
});
