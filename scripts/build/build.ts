/**
 * `pnpm build`: bundles each entry point of TARGETS with esbuild into one CommonJS file that `node`
 * runs without tsx (docs/architecture.md, "Production build"). The workspace packages and most
 * third-party code are inlined; the EXTERNAL packages stay `require()` calls, and the build fails if
 * a bundle imports one that its package or runtime/package.json does not declare, since the
 * bundle could then not find it at run time. Needs the Prisma client generated first
 * (scripts/generate.sh).
 */
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildConsole } from "./console";
import { externalPackages, undeclaredExternals } from "./declared-externals";
import { EXTERNAL, NEVER_INSTALLED, TARGETS, type BuildTarget } from "./targets";

const root = resolve(__dirname, "../..");

function dependenciesOf(packageDir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, packageDir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  return manifest.dependencies ?? {};
}

async function bundle(target: BuildTarget): Promise<Set<string>> {
  const result = await build({
    entryPoints: [join(root, target.entry)],
    outfile: join(root, target.outfile),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: [...Object.keys(EXTERNAL), ...NEVER_INSTALLED],
    // Class and function names stay as written: logs and errors print them (`err.name`, `type`).
    keepNames: true,
    // Stack traces map back to the sources with `node --enable-source-maps`; the sources
    // themselves are not copied into the map, which keeps it small.
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
  });
  return externalPackages(result.metafile);
}

async function main(): Promise<void> {
  const runtime = dependenciesOf("runtime");
  const started = Date.now();
  const [built] = await Promise.all([Promise.all(TARGETS.map(async (target) => ({ target, externals: await bundle(target) }))), buildConsole()]);
  const problems: string[] = [];
  for (const { target, externals } of built) problems.push(...undeclaredExternals(target, externals, dependenciesOf(target.packageDir), runtime));
  if (problems.length > 0) {
    process.stderr.write(`build: a bundle would not find what it requires at run time:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    process.exitCode = 1;
    return;
  }
  const names = TARGETS.map((t) => t.name);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`Built ${names.slice(0, -1).join(", ")} and ${names.at(-1)} into their dist/ folders, and the console into apps/console/dist (${seconds} s)\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`build failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
