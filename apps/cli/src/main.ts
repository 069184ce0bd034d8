import { ConfigError, loadCliConfig } from "@relay/config";
import { createLogger } from "@relay/core";
import {
  createApiKeyRepository,
  createChainRepository,
  createDatabase,
  createProjectRepository,
  createWalletRepository,
  createWebhookSecretRepository,
} from "@relay/db";
import { createKekLoader, createWebhookKeyringLoader } from "./kek";
import type { Output } from "./output";
import { runProgram } from "./program";
import { readSecretFromStdin } from "./stdin";

const output: Output = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

async function main(args: string[]): Promise<number> {
  let config;
  try {
    config = loadCliConfig({ needsKek: false }, process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    output.stderr(`error: ${e.message.replace(/\s*\n\s*/g, " ")}\n`);
    return 1;
  }
  // Logs go to stderr so that `--json` on stdout stays parseable.
  const logger = createLogger({ name: "relay-cli", level: config.logLevel, destination: process.stderr });
  const db = createDatabase({ url: config.databaseUrl, poolSize: 2 });
  try {
    return await runProgram(
      {
        projects: createProjectRepository(db),
        apiKeys: createApiKeyRepository(db),
        chains: createChainRepository(db),
        wallets: createWalletRepository(db),
        getKek: createKekLoader(process.env),
        webhookSecrets: createWebhookSecretRepository(db),
        getWebhookKeyring: createWebhookKeyringLoader(process.env),
        output,
        readSecretStdin: () => readSecretFromStdin(),
        logger,
      },
      args,
    );
  } finally {
    await db.$disconnect();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // An operator tool must not linger: if some socket keeps the loop alive, leave anyway.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (e: unknown) => {
    output.stderr(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
