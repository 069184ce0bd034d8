import type { Metafile } from "esbuild";
import { externalPackages, packageOf, undeclaredExternals } from "./declared-externals";

const target = { name: "tx-worker", entry: "apps/tx-worker/src/main.ts", outfile: "apps/tx-worker/dist/main.js", packageDir: "apps/tx-worker" };

describe("the externals a bundle requires", () => {
  it("are named by package, without node's own modules or optional ones never installed", () => {
    const imports = ["node:fs", "crypto", "secp256k1", "@bull-board/api/dist/src/index", "bullmq", "pg-native"].map((path) => ({ path, kind: "require-call" as const, external: true }));
    const metafile = { inputs: {}, outputs: { "main.js": { imports: [...imports, { path: "src/x.ts", kind: "import-statement" as const }], exports: [], inputs: {}, bytes: 0 } } } as Metafile;
    expect([...externalPackages(metafile)].sort()).toEqual(["@bull-board/api", "bullmq", "secp256k1"]);
    expect(packageOf("@prisma/client/runtime/client")).toBe("@prisma/client");
  });

  it("must be declared by the bundle's package and by runtime/package.json, at one range", () => {
    expect(undeclaredExternals(target, ["secp256k1"], { secp256k1: "5.0.2" }, { secp256k1: "5.0.2" })).toEqual([]);
    expect(undeclaredExternals(target, ["secp256k1"], {}, { secp256k1: "5.0.2" })).toEqual([
      "apps/tx-worker/dist/main.js requires secp256k1: add it to the dependencies of apps/tx-worker/package.json",
    ]);
    expect(undeclaredExternals(target, ["bullmq"], { bullmq: "^6.7.0" }, {})).toEqual([
      "apps/tx-worker/dist/main.js requires bullmq: add it to the dependencies of runtime/package.json",
    ]);
    expect(undeclaredExternals(target, ["bullmq"], { bullmq: "^6.7.0" }, { bullmq: "^6.8.0" })).toEqual([
      "bullmq is ^6.7.0 in apps/tx-worker/package.json but ^6.8.0 in runtime/package.json: make them the same",
    ]);
  });
});
