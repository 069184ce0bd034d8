import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { JsonFragment } from "ethers";

/** The test contracts' sources: packages/testing/contracts. */
export const CONTRACTS_DIR = path.resolve(__dirname, "../../contracts");

/** Where compiled contracts are kept between runs, beside the package's own dependencies. */
export const DEFAULT_CONTRACT_CACHE_DIR = path.resolve(__dirname, "../../node_modules/.cache/relay-contracts");

/**
 * Pinned rather than left to solc (0.8.37 defaults to osaka): cancun bytecode runs on anvil 1.7's
 * default hardfork (Bpo1, Osaka rules) and equally on a node started with `--hardfork cancun` or
 * `prague`, while osaka bytecode may use CLZ, which those reject. The contracts need nothing newer.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
} as const;

export interface CompiledContract {
  abi: JsonFragment[];
  /** Creation bytecode, 0x-prefixed. */
  bytecode: string;
}

export interface CompileOptions {
  /** Default DEFAULT_CONTRACT_CACHE_DIR; a fresh directory forces a compile. */
  cacheDir?: string;
}

interface CacheEntry {
  solc: string;
  /** SHA-256 of every source the compile read, the imports included, by source unit name. */
  sources: Record<string, string>;
  contracts: Record<string, CompiledContract>;
}

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: JsonFragment[]; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles `file` (relative to CONTRACTS_DIR, or absolute) with the solc-js of this package and
 * returns contract `name` from it. The whole file's output is cached on disk, keyed by the
 * source's hash, the solc version and the settings; a hit also requires every imported source
 * to be unchanged. Throws with solc's messages when the source does not compile.
 */
export function compileContract(file: string, name: string, options: CompileOptions = {}): CompiledContract {
  const absolute = path.resolve(CONTRACTS_DIR, file);
  // Imports resolve against the main file's folder, so its base name is the source unit name.
  const root = path.dirname(absolute);
  const unit = path.basename(absolute);
  const source = readFileSync(absolute, "utf8");

  const solcVersion = solcPackageVersion();
  const key = sha256(JSON.stringify({ solc: solcVersion, settings: SOLC_SETTINGS, unit, source }));
  const cacheFile = path.join(options.cacheDir ?? DEFAULT_CONTRACT_CACHE_DIR, `${unit}-${key.slice(0, 32)}.json`);

  let entry = readCache(cacheFile, root);
  if (!entry) {
    entry = compile(root, unit, source, solcVersion);
    writeCache(cacheFile, entry);
  }
  const contract = entry.contracts[name];
  if (!contract) {
    throw new Error(`${file} has no contract ${name} (it has: ${Object.keys(entry.contracts).join(", ") || "none"})`);
  }
  return contract;
}

function compile(root: string, unit: string, source: string, solcVersion: string): CacheEntry {
  const sources: Record<string, string> = { [unit]: sha256(source) };
  const findImports = (importPath: string) => {
    try {
      const content = readFileSync(path.resolve(root, importPath), "utf8");
      sources[importPath] = sha256(content);
      return { contents: content };
    } catch {
      return { error: `cannot read ${importPath} (imports resolve against ${root})` };
    }
  };
  const input = {
    language: "Solidity",
    sources: { [unit]: { content: source } },
    settings: { ...SOLC_SETTINGS, outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(loadSolc().compile(JSON.stringify(input), { import: findImports })) as SolcOutput;

  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(
      `solc ${solcVersion} could not compile ${path.join(root, unit)}:\n${errors.map((e) => e.formattedMessage).join("\n")}`,
    );
  }
  const contracts: Record<string, CompiledContract> = {};
  for (const [name, compiled] of Object.entries(output.contracts?.[unit] ?? {})) {
    contracts[name] = { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  }
  return { solc: solcVersion, sources, contracts };
}

function readCache(cacheFile: string, root: string): CacheEntry | undefined {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(readFileSync(cacheFile, "utf8")) as CacheEntry;
  } catch {
    return undefined; // missing or unreadable: compile again and overwrite
  }
  for (const [unit, hash] of Object.entries(entry.sources)) {
    let content: string;
    try {
      content = readFileSync(path.resolve(root, unit), "utf8");
    } catch {
      return undefined;
    }
    if (sha256(content) !== hash) return undefined;
  }
  return entry;
}

function writeCache(cacheFile: string, entry: CacheEntry) {
  // Several jest workers may compile the same file at once: each writes its own temporary file
  // and renames it into place, so no reader ever sees half an entry.
  const temporary = `${cacheFile}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    writeFileSync(temporary, JSON.stringify(entry));
    renameSync(temporary, cacheFile);
  } catch {
    // A read-only or full disk only costs the next run a compile.
    rmSync(temporary, { force: true });
  }
}

/** From the package manifest: loading the compiler itself takes seconds, a cache hit must not. */
function solcPackageVersion(): string {
  return (JSON.parse(readFileSync(require.resolve("solc/package.json"), "utf8")) as { version: string }).version;
}

function loadSolc(): typeof import("solc") {
  // Required on first compile only (its 9 MB soljson.js takes a second or more to load).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("solc") as typeof import("solc");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
