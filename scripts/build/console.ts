/**
 * The console's static files (apps/console, docs/console.md): the Preact app bundled by esbuild for
 * the browser into `<outdir>/assets/console.js`, its stylesheet beside it and `index.html`. All of
 * it from the registry's packages at build time: the page loads nothing from anywhere but the
 * gateway. `pnpm build` calls it; the console's browser test calls it too, so a clean clone's test
 * run has the files.
 */
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(__dirname, "../..");
export const CONSOLE_SOURCE = join(root, "apps/console/src");
/** Where the gateway looks for the files unless CONSOLE_DIR says otherwise. */
export const CONSOLE_DIST = join(root, "apps/console/dist");

export async function buildConsole(outdir: string = CONSOLE_DIST): Promise<void> {
  mkdirSync(join(outdir, "assets"), { recursive: true });
  await build({
    entryPoints: [join(CONSOLE_SOURCE, "main.tsx")],
    outfile: join(outdir, "assets/console.js"),
    bundle: true,
    platform: "browser",
    format: "iife",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: join(root, "apps/console/tsconfig.json"),
    minify: true,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "linked",
    logLevel: "warning",
  });
  copyFileSync(join(CONSOLE_SOURCE, "console.css"), join(outdir, "assets/console.css"));
  copyFileSync(join(CONSOLE_SOURCE, "index.html"), join(outdir, "index.html"));
}
