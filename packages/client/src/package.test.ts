import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  private?: boolean;
  files: string[];
  scripts: Record<string, string>;
  publishConfig: { main: string; types: string };
  dependencies: Record<string, string>;
};

describe("@relay/client as a package of its own", () => {
  it("publishes dist/ built by tsc, with main and types pointing into it", () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.files).toContain("dist");
    expect(pkg.publishConfig).toEqual({ main: "dist/index.js", types: "dist/index.d.ts" });
    expect(pkg.scripts.build).toBe("tsc -p tsconfig.build.json");
    const build = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8")) as { compilerOptions: { outDir: string; declaration: boolean } };
    expect(build.compilerOptions).toMatchObject({ outDir: "dist", declaration: true });
  });

  it("depends at run time on published packages only, and its sources import nothing else", () => {
    const dependencies = Object.keys(pkg.dependencies);
    expect(dependencies).toEqual(["standardwebhooks"]);
    expect(Object.values(pkg.dependencies).some((v) => v.startsWith("workspace:"))).toBe(false);
    const sources = readdirSync(__dirname, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(sources).toContain("index.ts");
    expect(sources).toContain(join("types", "index.ts"));
    for (const file of sources) {
      const imports = [...readFileSync(join(__dirname, file), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]!);
      for (const spec of imports) expect(spec.startsWith("./") || spec.startsWith("node:") || dependencies.includes(spec)).toBe(true);
    }
  });
});
