import { generateApiKey } from "@relay/core";
import { generateWalletKey, type Kek } from "@relay/custody";
import {
  createApiKeyRepository,
  createChainRepository,
  createProjectRepository,
  createWalletRepository,
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
  await createChainRepository(db).upsert({
    chainId: chain.chainId,
    name: chain.local ? "anvil (local)" : `chain ${chain.chainId}`,
    rpcUrls: [chain.rpcUrl],
    confirmations: 1,
    lowBalanceThresholdWei: parseEther("0.1"),
  });

  const projects = createProjectRepository(db);
  const project = (await projects.findByName("demo")) ?? (await projects.create("demo"));

  const wallets = createWalletRepository(db);
  let [wallet] = await wallets.listByProject(project.id);
  if (!wallet) {
    const key = generateWalletKey(kek);
    wallet = await wallets.create({ projectId: project.id, address: key.address, sealKey: key.sealFor });
  }

  const provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    if (chain.local && (await provider.getBalance(wallet.address)) < parseEther("10")) {
      await provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("100"))]);
    }
    const balance = await provider.getBalance(wallet.address);

    const key = generateApiKey();
    await createApiKeyRepository(db).create({ id: key.id, projectId: project.id, name: "quick start", secretHash: key.secretHash });
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
