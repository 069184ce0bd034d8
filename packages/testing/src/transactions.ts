/** Helpers for transaction tests: register an anvil chain, fund wallets, read and await a transaction over HTTP. */
import { parseEther, toBeHex, JsonRpcProvider } from "ethers";
import { createChainRepository, type Database } from "@relay/db";

export const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"];

/**
 * Registers an anvil node as a chain, with short timings so tests run fast. `node` may be any RPC
 * URL with the chain id it is registered under: a proxy in front of anvil, a port nothing answers.
 */
export async function addChain(
  db: Database,
  node: { chainId: number | bigint; rpcUrl: string },
  overrides: { stuckAfterSeconds?: number; confirmations?: number; lowBalanceThresholdWei?: bigint; maxFeePerGasCapWei?: bigint; blockTimeMs?: number } = {},
) {
  await createChainRepository(db).upsert({
    ...(overrides.maxFeePerGasCapWei === undefined ? {} : { maxFeePerGasCapWei: overrides.maxFeePerGasCapWei }),
    chainId: BigInt(node.chainId),
    name: `anvil ${node.chainId}`,
    rpcUrls: [node.rpcUrl],
    confirmations: overrides.confirmations ?? 1,
    lowBalanceThresholdWei: overrides.lowBalanceThresholdWei ?? 0n,
    blockTimeMs: overrides.blockTimeMs ?? 200,
    stuckAfterSeconds: overrides.stuckAfterSeconds ?? 30,
  });
}

export async function fund(rpcUrl: string, addresses: string[], eth = "100") {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  for (const address of addresses) await provider.send("anvil_setBalance", [address, toBeHex(parseEther(eth))]);
  provider.destroy();
}

export interface TransactionView {
  transactionId: string;
  args: unknown;
  status: string;
  hash: string | null;
  from: string | null;
  nonce: string | null;
  error: string | null;
  history: { status: string; reason: string | null }[];
  attempts: { hash: string; nonce: string; gasLimit: string; maxFeePerGas: string | null; gasPrice: string | null; cancel: boolean }[];
}

export async function readTransaction(baseUrl: string, apiKey: string, projectId: string, id: string): Promise<TransactionView> {
  const res = await fetch(`${baseUrl}/transact/project/${projectId}/transactions/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (res.status !== 200) throw new Error(`read ${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as TransactionView;
}

/** Polls the read endpoint until the transaction is in one of `statuses`. */
export async function waitForStatus(
  baseUrl: string,
  apiKey: string,
  projectId: string,
  id: string,
  statuses = FINAL,
  timeoutMs = 30_000,
): Promise<TransactionView> {
  const deadline = Date.now() + timeoutMs;
  let last: TransactionView | undefined;
  while (Date.now() < deadline) {
    last = await readTransaction(baseUrl, apiKey, projectId, id);
    if (statuses.includes(last.status)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`transaction ${id} still ${last?.status} after ${timeoutMs} ms: ${JSON.stringify(last)}`);
}
