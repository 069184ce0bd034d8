import { join } from "node:path";
import { ConfigError, loadCliConfig, loadCliCustodyConfig } from "@relay/config";
import { openCustodyBackends, type CustodyBackends } from "@relay/custody";
import { createLogger } from "@relay/core";
import {
  createApiKeyRepository,
  createChainRepository,
  createPolicyRepository,
  createDatabase,
  createProjectFundingRepository,
  createProjectRepository,
  createWalletRepository,
  createWebhookSecretRepository,
} from "@relay/db";
import { createCliAudit, operatorName } from "./audit";
import type { DevKeys } from "./dev-keys";
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
  // Run in a clone where `npm start` has run (`npm run relay` runs it from the clone's root), the
  // CLI works with the quick start's development keys, as the quick start's apps do; never under
  // NODE_ENV=production, where a key from a forgotten .dev/ would seal real wallets.
  const devKeys: DevKeys | undefined = config.env === "production" ? undefined : { dir: join(process.cwd(), ".dev"), announce: output.stderr };
  const db = createDatabase({ url: config.databaseUrl, poolSize: 2, pooler: config.databasePooler });
  let custody: CustodyBackends | undefined;
  try {
    return await runProgram(
      {
        projects: createProjectRepository(db),
        apiKeys: createApiKeyRepository(db),
        chains: createChainRepository(db),
        wallets: createWalletRepository(db),
        fundings: createProjectFundingRepository(db),
        policies: createPolicyRepository(db),
        getKek: createKekLoader(process.env, devKeys),
        webhookSecrets: createWebhookSecretRepository(db),
        getWebhookKeyring: createWebhookKeyringLoader(process.env, devKeys),
        getCustodyBackends: () => (custody ??= openCustodyBackends(loadCliCustodyConfig(process.env))),
        audit: createCliAudit(db, operatorName(config.operator)),
        output,
        readSecretStdin: () => readSecretFromStdin(),
        logger,
      },
      args,
    );
  } finally {
    await custody?.close();
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
