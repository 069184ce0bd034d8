import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { Pool } from "pg";
import { createDatabase, createPool, type Database } from "../client";
import { testDatabasePooler } from "@relay/config";
import { createTransactionRepository, type NewTransaction, type TransactionRepository } from "./transaction.repository";

/**
 * What the transaction integration tests share: the run's database (packages/db cannot use
 * @relay/testing, which depends on it) and rows of their own, made directly, because the tests of
 * one run share the database.
 */
export interface TransactionTestContext {
  pool: Pool;
  db: Database;
  repository: TransactionRepository;
  close(): Promise<void>;
}

export function transactionTestContext(): TransactionTestContext {
  const url = process.env.RELAY_TEST_DATABASE_URL;
  if (!url) throw new Error("RELAY_TEST_DATABASE_URL is not set: run through jest with the workspace jest.config.js");
  // Enough connections for the concurrency tests to really run side by side.
  const pool = createPool({ url, poolSize: 20, pooler: testDatabasePooler() });
  const db = createDatabase({ pool });
  const close = async () => {
    await db.$disconnect();
    // $disconnect ends the shared pool only if Prisma itself ever connected.
    if (!pool.ended) await pool.end();
  };
  return { pool, db, repository: createTransactionRepository({ sql: pool, db }), close };
}

export interface Fixture {
  projectId: string;
  chainId: bigint;
  /** Checksum-free but unique 0x addresses of wallets of the project. */
  wallets: string[];
}

/** A project with `walletCount` wallets on a chain of its own. */
export async function createFixture(pool: Pool, walletCount = 1): Promise<Fixture> {
  const projectId = randomUUID();
  // A chain id no real network or other test uses.
  const chainId = BigInt(randomInt(1_000_000_000, 2 ** 42)) * 1000n + BigInt(randomInt(1000)); // below 2^53, as the relay takes
  await pool.query(`INSERT INTO project (id, name) VALUES ($1, $2)`, [projectId, `tx-test-${projectId}`]);
  await pool.query(`INSERT INTO chain (chain_id, name, rpc_urls) VALUES ($1, $2, $3)`, [
    chainId.toString(),
    `tx-test-${chainId}`,
    ["http://127.0.0.1:1"],
  ]);
  const wallets: string[] = [];
  for (let i = 0; i < walletCount; i++) {
    const address = `0x${randomBytes(20).toString("hex")}`;
    await pool.query(`INSERT INTO wallet (project_id, address, encrypted_key) VALUES ($1, $2, 'not-a-key')`, [projectId, address]);
    wallets.push(address);
  }
  return { projectId, chainId, wallets };
}

export const newTransaction = (fixture: Fixture, overrides: Partial<NewTransaction> = {}): NewTransaction => ({
  projectId: fixture.projectId,
  id: randomUUID(),
  chainId: fixture.chainId,
  contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  functionSignature: "function setValue(uint256 value)",
  args: { value: "42" },
  calldata: Uint8Array.from([0x55, 0x24, 0x10, 0x77, 0x2a]),
  valueWei: 0n,
  ...overrides,
});
