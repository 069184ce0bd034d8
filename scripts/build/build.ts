/**
 * `pnpm build`: bundles each entry point of TARGETS with esbuild into one CommonJS file that `node`
 * runs without tsx (docs/architecture.md, "Production build"). The workspace packages and most
 * third-party code are inlined; the EXTERNAL packages stay `require()` calls, and the build fails if
 * a bundle imports one that its package or runtime/package.json does not declare, since the
 * bundle could then not find it at run time. Needs the Prisma client generated first
 * (scripts/generate.sh).
 */
import { build, type Metafile } from "esbuild";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, resolve } from "node:path";
import { EXTERNAL, NEVER_INSTALLED, TARGETS, type BuildTarget } from "./targets";

const root = resolve(__dirname, "../..");
const BUILTINS = new Set(builtinModules);

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function dependenciesOf(packageDir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, packageDir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  return manifest.dependencies ?? {};
}

/** The installed packages a bundle leaves to `require()` at run time. */
function externalPackages(metafile: Metafile): Set<string> {
  const found = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (!imported.external || imported.path.startsWith("node:") || BUILTINS.has(imported.path)) continue;
      found.add(packageOf(imported.path));
    }
  }
  for (const name of NEVER_INSTALLED) found.delete(name);
  return found;
}

/** Why `target`'s bundle would fail to load an external at run time, one line each. */
function undeclared(target: BuildTarget, externals: Set<string>, runtime: Record<string, string>): string[] {
  const own = dependenciesOf(target.packageDir);
  const problems: string[] = [];
  for (const name of externals) {
    if (!own[name]) problems.push(`${target.outfile} requires ${name}: add it to the dependencies of ${target.packageDir}/package.json`);
    if (!runtime[name]) problems.push(`${target.outfile} requires ${name}: add it to the dependencies of runtime/package.json`);
    else if (own[name] && own[name] !== runtime[name]) {
      problems.push(`${name} is ${own[name]} in ${target.packageDir}/package.json but ${runtime[name]} in runtime/package.json: make them the same`);
    }
  }
  return problems;
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
  const built = await Promise.all(TARGETS.map(async (target) => ({ target, externals: await bundle(target) })));
  const problems: string[] = [];
  for (const { target, externals } of built) problems.push(...undeclared(target, externals, runtime));
  if (problems.length > 0) {
    process.stderr.write(`build: a bundle would not find what it requires at run time:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    process.exitCode = 1;
    return;
  }
  const names = TARGETS.map((t) => t.name);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`Built ${names.slice(0, -1).join(", ")} and ${names.at(-1)} into their dist/ folders (${seconds} s)\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`build failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
