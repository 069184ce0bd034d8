import { randomBytes } from "node:crypto";
import { AppError } from "@relay/core";
import type { CustodyBackends, Kek } from "@relay/custody";
import {
  createApiKeyRepository,
  createChainRepository,
  createPolicyRepository,
  createDatabase,
  createProjectFundingRepository,
  createProjectRepository,
  createWalletRepository,
  createWebhookSecretRepository,
  type Database,
} from "@relay/db";
import { createCliAudit } from "./audit";
import type { CliDeps } from "./deps";
import { runProgram } from "./program";

/** Test support: runs CLI commands in-process against a real database and captures the output. */

export function testDatabaseUrl(): string {
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through the root jest config (its global setup creates the database)");
  return url;
}

export const openTestDatabase = (): Database => createDatabase({ url: testDatabaseUrl(), poolSize: 2 });

export const randomKek = (): Kek => ({ activeKeyId: "cli-test", keys: new Map([["cli-test", randomBytes(32)]]) });

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface HarnessOptions {
  /** Omit to run without a key-encryption key, as on an operator machine that lacks it. */
  kek?: Kek;
  getKek?: () => Kek;
  stdin?: string;
  probeChainId?: CliDeps["probeChainId"];
  /** Omit to run without WEBHOOK_SECRET_KEY. */
  webhookKeyring?: Kek;
  /** The HSM and KMS backends `wallets create --backend` uses; omit for none configured. */
  custody?: Omit<CustodyBackends, "close">;
  /** The operator the audit log names (default "cli-test"). */
  operator?: string;
}

export function createCliHarness(db: Database, options: HarnessOptions = {}) {
  const run = async (...args: string[]): Promise<CliRun> => {
    let stdout = "";
    let stderr = "";
    const deps: CliDeps = {
      projects: createProjectRepository(db),
      apiKeys: createApiKeyRepository(db),
      chains: createChainRepository(db),
      wallets: createWalletRepository(db),
        fundings: createProjectFundingRepository(db),
        policies: createPolicyRepository(db),
      getKek:
        options.getKek ??
        (() => {
          if (!options.kek) throw new AppError("CONFIG", "KEY_ENCRYPTION_KEY is not set");
          return options.kek;
        }),
      webhookSecrets: createWebhookSecretRepository(db),
      getWebhookKeyring: () => {
        if (!options.webhookKeyring) throw new AppError("CONFIG", "WEBHOOK_SECRET_KEY is not set");
        return options.webhookKeyring;
      },
      getCustodyBackends: () => ({ ...options.custody, close: async () => undefined }),
      audit: createCliAudit(db, options.operator ?? "cli-test"),
      output: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
      readSecretStdin: async () => options.stdin ?? "",
      ...(options.probeChainId ? { probeChainId: options.probeChainId } : {}),
    };
    const code = await runProgram(deps, args);
    return { code, stdout, stderr };
  };

  /** Runs a command with `--json`, expects success and returns the parsed document. */
  const json = async <T = unknown>(...args: string[]): Promise<T> => {
    const result = await run(...args, "--json");
    if (result.code !== 0) throw new Error(`relay ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
    expect(result.stderr).toBe("");
    return JSON.parse(result.stdout) as T;
  };

  /** Runs a command that must fail and returns its single stderr line. */
  const fails = async (...args: string[]): Promise<string> => {
    const result = await run(...args);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: "" });
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    return lines[0] as string;
  };

  return { run, json, fails };
}
