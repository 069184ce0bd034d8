import { randomBytes } from "node:crypto";
import { createDatabase } from "@relay/db";
import { createProjectFixture, createTestDatabase, deployRecorder, startAnvil, testQueuePrefix, type AnvilInstance, type ProjectFixture, type TestDatabase } from "@relay/testing";
import { deleteQueueKeys, fund, registerChain } from "./relay";

export interface ProjectOnAnvil {
  anvil: AnvilInstance;
  recorderAddress: string;
  database: TestDatabase;
  queuePrefix: string;
  project: ProjectFixture;
  /** What every app of the run gets: its database and queue prefix. */
  appEnv: { DATABASE_URL: string; QUEUE_PREFIX: string };
  /** What the apps that hold keys (tx-worker, signing-worker) get besides. */
  custodyEnv: { KEY_ENCRYPTION_KEY: string; KEY_ENCRYPTION_KEY_ID: string };
  /** Stops anvil, deletes the run's queue keys and drops its database. */
  release(): Promise<void>;
}

/**
 * What the transaction benchmarks run against: anvil with `blockTime` s blocks and a block gas
 * limit of `gasLimit` (so that block space does not bound the rate), the Recorder contract, a
 * fresh migrated database with that chain registered, a queue prefix of the run's own, and a
 * project with `wallets` wallets, each funded on the chain.
 */
export async function startProjectOnAnvil(options: { chainId: number; blockTime: number; gasLimit: number; wallets: number; name: string }): Promise<ProjectOnAnvil> {
  const anvil = await startAnvil({ chainId: options.chainId, blockTime: options.blockTime, extraArgs: ["--gas-limit", String(options.gasLimit)] });
  const recorder = await deployRecorder(anvil.rpcUrl);
  recorder.provider.destroy();

  const database = await createTestDatabase({ migrate: true });
  const queuePrefix = testQueuePrefix(options.name);
  const kek = randomBytes(32);
  const db = createDatabase({ url: database.url });
  await registerChain(db, anvil, options.blockTime * 1000);
  const project = await createProjectFixture(db, { activeKeyId: "bench", keys: new Map([["bench", kek]]) }, { wallets: options.wallets });
  await db.$disconnect();
  await fund(anvil, project.wallets.map((w) => w.address));

  return {
    anvil,
    recorderAddress: recorder.address,
    database,
    queuePrefix,
    project,
    appEnv: { DATABASE_URL: database.url, QUEUE_PREFIX: queuePrefix },
    custodyEnv: { KEY_ENCRYPTION_KEY: kek.toString("base64"), KEY_ENCRYPTION_KEY_ID: "bench" },
    release: async () => {
      await anvil.stop();
      await deleteQueueKeys(queuePrefix);
      await database.drop();
    },
  };
}
