import { builtinModules } from "node:module";
import type { Metafile } from "esbuild";
import { NEVER_INSTALLED, type BuildTarget } from "./targets";

const BUILTINS = new Set(builtinModules);

type Dependencies = Readonly<Record<string, string>>;

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** The installed packages a bundle leaves to `require()` at run time. */
export function externalPackages(metafile: Metafile): Set<string> {
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

/**
 * Why `target`'s bundle would fail to load one of its `externals` at run time, one line each:
 * missing from the dependencies of its own package (`own`: how a clone resolves it) or of
 * runtime/package.json (`runtime`: what the image installs), or at two different ranges.
 */
export function undeclaredExternals(target: BuildTarget, externals: Iterable<string>, own: Dependencies, runtime: Dependencies): string[] {
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
