/**
 * `tsx scripts/build/assemble.ts <dir>`: lays out in <dir> what the production image runs, after
 * `pnpm build`: the bundles (and their source maps) and the console's files at the paths they have in the repository,
 * prisma/migrations for the migrate step, and node_modules holding runtime/package.json's
 * dependencies only, installed for production from the lockfile. The Dockerfile's final stage is a
 * copy of this folder; `node apps/<app>/dist/main.js` runs an app from it.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { CONSOLE_DIST } from "./console";
import { TARGETS } from "./targets";

const root = resolve(__dirname, "../..");

function pnpm(args: string[]): void {
  execFileSync("bash", ["-c", 'source scripts/lib/pnpm.sh && "${PNPM[@]}" "$@"', "pnpm", ...args], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
}

/**
 * The workspace root's dev dependencies out of <dir>: pnpm links one (typescript) where a package
 * declares it as an optional peer (valibot, under the queue dashboard), because peers resolve from
 * the workspace root too. Nothing requires it at run time; it is a compiler, and the largest
 * package there.
 */
function removeRootDevDependencies(dir: string): void {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
  const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}));
  const store = join(dir, "node_modules", ".pnpm");
  for (const entry of readdirSync(store)) {
    const name = entry.startsWith("@") ? entry.split("@").slice(0, 2).join("@").replace("+", "/") : entry.split("@")[0];
    if (name && devOnly.has(name)) rmSync(join(store, entry), { recursive: true, force: true });
  }
  // The links to what was removed: in the folders of the packages that named it as a peer, and
  // in pnpm's own hoisting folder.
  const folders = readdirSync(store, { withFileTypes: true }).filter((e) => e.isDirectory());
  for (const modules of [...folders.map((e) => join(store, e.name, "node_modules")), join(store, "node_modules")]) {
    for (const name of devOnly) {
      const link = join(modules, name);
      if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && !existsSync(link)) rmSync(link);
    }
  }
}

function assemble(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
  for (const target of TARGETS) {
    if (!existsSync(join(root, target.outfile))) throw new Error(`${target.outfile} is missing: run \`pnpm build\` first`);
  }
  if (!existsSync(join(CONSOLE_DIST, "index.html"))) throw new Error("apps/console/dist is missing: run `pnpm build` first");
  // pnpm deploy asks for injected workspace packages; runtime/ has no workspace dependencies, so
  // the setting changes nothing in what it installs.
  pnpm(["--filter", "@relay/runtime", "--prod", "--config.inject-workspace-packages=true", "deploy", "--offline", "--reporter=silent", dir]);
  removeRootDevDependencies(dir);
  // Resolved for the workspace, not this folder: it would name what was just removed.
  rmSync(join(dir, "pnpm-lock.yaml"), { force: true });
  for (const target of TARGETS) {
    for (const file of [target.outfile, `${target.outfile}.map`]) cpSync(join(root, file), join(dir, file));
  }
  cpSync(join(root, "prisma", "migrations"), join(dir, "prisma", "migrations"), { recursive: true });
  // The console's static files, where the gateway's bundle looks for them (apps/console/dist).
  cpSync(CONSOLE_DIST, join(dir, "apps", "console", "dist"), { recursive: true });
}

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: tsx scripts/build/assemble.ts <empty or new folder>\n");
  process.exit(2);
}
assemble(resolve(dir));
