import { randomBytes, randomUUID } from "node:crypto";
import { generateApiKey } from "@relay/core";
import { generateWalletKey, importWalletKey, type Kek } from "@relay/custody";
import { createApiKeyRepository, createProjectRepository, createWalletRepository, type Database } from "@relay/db";

/** A key-encryption key made for one test run. */
export function testKek(): Kek {
  return { activeKeyId: "test", keys: new Map([["test", randomBytes(32)]]) };
}

export interface ProjectFixture {
  projectId: string;
  apiKey: string;
  apiKeyId: string;
  wallets: { id: string; address: string }[];
}

/**
 * A project with an API key and wallets, written through the same repositories the CLI uses.
 * `privateKeys` imports known keys (e.g. funded anvil accounts); otherwise keys are generated.
 */
export async function createProjectFixture(
  db: Database,
  kek: Kek,
  options: { wallets?: number; privateKeys?: string[] } = {},
): Promise<ProjectFixture> {
  const project = await createProjectRepository(db).create(`test-${randomUUID()}`);
  const key = generateApiKey();
  await createApiKeyRepository(db).create({ id: key.id, projectId: project.id, name: "test", secretHash: key.secretHash });
  const walletRepo = createWalletRepository(db);
  const sources = options.privateKeys
    ? options.privateKeys.map((k) => importWalletKey(kek, k))
    : Array.from({ length: options.wallets ?? 1 }, () => generateWalletKey(kek));
  const wallets = [];
  for (const source of sources) {
    const wallet = await walletRepo.create({ projectId: project.id, address: source.address, sealKey: source.sealFor });
    wallets.push({ id: wallet.id, address: wallet.address });
  }
  return { projectId: project.id, apiKey: key.token, apiKeyId: key.id, wallets };
}
