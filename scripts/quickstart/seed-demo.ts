import { generateApiKey } from "@relay/core";
import { generateWalletKey, openWalletKey, type Kek } from "@relay/custody";
import {
  createApiKeyRepository,
  createChainRepository,
  createProjectRepository,
  createWalletRepository,
  recordAudit,
  type AuditEntry,
  type Database,
} from "@relay/db";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";

export interface DemoSeed {
  projectId: string;
  walletAddress: string;
  apiKey: string;
  chainId: bigint;
  balanceEth: string;
}

/**
 * The demo project the quick start prints: created on first run and reused after; a new API key
 * every run (keys are shown once and cannot be printed again). On a local anvil the wallet is
 * funded with anvil's own `anvil_setBalance`.
 */
export async function seedDemo(db: Database, kek: Kek, chain: { chainId: bigint; rpcUrl: string; local: boolean }): Promise<DemoSeed> {
  const projects = createProjectRepository(db);
  // The quick start is the operator of what it makes (docs/audit.md).
  const audit = (entry: Omit<AuditEntry, "actor">) => recordAudit(db, { ...entry, actor: { type: "operator", id: "quickstart" } });
  let project = await projects.findByName("demo");
  if (!project) {
    project = await projects.create("demo");
    await audit({ action: "project.created", projectId: project.id, subject: project.id, details: { name: project.name } });
  }

  const wallets = createWalletRepository(db);
  let [wallet] = await wallets.listByProject(project.id);
  if (!wallet) {
    const key = generateWalletKey(kek);
    wallet = await wallets.create({ projectId: project.id, address: key.address, sealKey: key.sealFor });
    await audit({ action: "wallet.created", projectId: project.id, walletAddress: wallet.address, subject: wallet.id });
  }
  try {
    openWalletKey(kek, (await wallets.findWithKey(wallet.id))!);
  } catch {
    // Another clone's quick start (its own .dev/kek) made the demo project in the same database:
    // every sign would answer 500 behind a banner that says all is well.
    throw new Error(
      `the demo wallet ${wallet.address} in the database was sealed with another key-encryption key than .dev/kek (another clone's quick start?): ` +
        "copy that clone's .dev/kek here, or start with DATABASE_URL naming another database (or drop that database to start afresh)",
    );
  }

  // After the check above: a start that fails there leaves the chain record as it was.
  await createChainRepository(db).upsert({
    chainId: chain.chainId,
    name: chain.local ? "anvil (local)" : `chain ${chain.chainId}`,
    rpcUrls: [chain.rpcUrl],
    confirmations: 1,
    lowBalanceThresholdWei: parseEther("0.1"),
  });

  const provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    if (chain.local && (await provider.getBalance(wallet.address)) < parseEther("10")) {
      await provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("100"))]);
    }
    const balance = await provider.getBalance(wallet.address);

    const key = generateApiKey();
    await createApiKeyRepository(db).create({ id: key.id, projectId: project.id, name: "quick start", secretHash: key.secretHash });
    await audit({ action: "api_key.created", projectId: project.id, subject: key.id, details: { name: "quick start" } });
    return {
      projectId: project.id,
      walletAddress: wallet.address,
      apiKey: key.token,
      chainId: chain.chainId,
      balanceEth: (Number(balance / 10n ** 14n) / 1e4).toString(),
    };
  } finally {
    provider.destroy();
  }
}
