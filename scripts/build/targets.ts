/**
 * What `pnpm build` produces: one CommonJS bundle per entry point, written next to the package
 * whose package.json declares what the bundle loads at run time (apps/<app>/dist/main.js).
 */
export interface BuildTarget {
  name: string;
  /** The TypeScript entry, from the repository root. */
  entry: string;
  /** The bundle, from the repository root. */
  outfile: string;
  /** The package whose `dependencies` the bundle's external imports resolve from in a clone. */
  packageDir: string;
}

export const TARGETS: readonly BuildTarget[] = [
  { name: "gateway", entry: "apps/gateway/src/main.ts", outfile: "apps/gateway/dist/main.js", packageDir: "apps/gateway" },
  { name: "signing-worker", entry: "apps/signing-worker/src/main.ts", outfile: "apps/signing-worker/dist/main.js", packageDir: "apps/signing-worker" },
  { name: "tx-worker", entry: "apps/tx-worker/src/main.ts", outfile: "apps/tx-worker/dist/main.js", packageDir: "apps/tx-worker" },
  { name: "webhook-worker", entry: "apps/webhook-worker/src/main.ts", outfile: "apps/webhook-worker/dist/main.js", packageDir: "apps/webhook-worker" },
  { name: "cli", entry: "apps/cli/src/main.ts", outfile: "apps/cli/dist/main.js", packageDir: "apps/cli" },
  { name: "migrate", entry: "packages/db/src/bin/migrate.ts", outfile: "packages/db/dist/migrate.js", packageDir: "packages/db" },
];

/**
 * Packages the bundles leave as `require()` calls, loaded from node_modules at run time: those that
 * stop working once their files are moved. Everything else (the workspace packages, express,
 * ethers, viem, Prisma's client and its WebAssembly query compiler, pino, pg, zod…) is inlined.
 * Each one is in the `dependencies` of every package in TARGETS whose bundle imports it, so that a
 * clone resolves it from the bundle's folder, and in runtime/package.json, which is what the
 * production image installs (the build checks both).
 */
export const EXTERNAL: Readonly<Record<string, string>> = {
  bullmq: "native msgpack decoder (msgpackr-extract) found from its own folder; sandboxed processors are files",
  ioredis: "the one copy bullmq loads too: the connections we open are handed to it",
  secp256k1: "libsecp256k1's prebuilt binding, found from its own folder (inlined, signing would silently fall back to JS)",
  pkcs11js: "the PKCS#11 binding (HSM custody) loads build/Release/pkcs11.node from its own folder",
  "swagger-ui-express": "serves swagger-ui-dist's files from that package's folder (/docs)",
  "@bull-board/api": "reads the dashboard's UI package (@bull-board/ui) from its folder",
  "@bull-board/express": "serves the dashboard's assets and templates from @bull-board/ui's folder (/admin/queues)",
};

/** Optional requires inside inlined packages, for modules that are never installed. */
export const NEVER_INSTALLED: readonly string[] = [
  "pg-native", // pg's optional native client, loaded only through `pg.native`
];
