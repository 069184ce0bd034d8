import { verifyMessage } from "ethers";
import { createDatabase, createPool, createWalletRepository, type Database } from "@relay/db";
import { createRedis, type Redis } from "@relay/queue";
import {
  addChain,
  createProcessGroup,
  createProjectFixture,
  createSoftHsmToken,
  createTestDatabase,
  deleteRedisKeys,
  fund,
  setOrderCall,
  startRecorderChain,
  testKek,
  testQueuePrefix,
  waitForStatus,
  type AppProcess,
  type ProcessGroup,
  type ProjectFixture,
  type RecorderChain,
  type SoftHsmToken,
  type TestDatabase,
} from "@relay/testing";
import { post } from "../support/harness";

/**
 * The apps as production runs them, each its own process configured by the environment only
 * (their main.ts): the signing worker makes a wallet's key in the SoftHSM2 token and signs with
 * it; the tx-worker, a separate process logged in to the same token, signs its transaction.
 */
describe("HSM custody across the apps' own processes", () => {
  const kek = testKek();
  const prefix = testQueuePrefix("custody-processes");
  let token: SoftHsmToken;
  let database: TestDatabase;
  let chain: RecorderChain;
  let db: Database;
  let redis: Redis;
  let group: ProcessGroup;
  let gateway: string;
  let workers: AppProcess[];
  let project: ProjectFixture;

  beforeAll(async () => {
    // Only the processes below use the token: a store of its own, out of the other files' way.
    token = await createSoftHsmToken({ ownStore: true });
    // A database of its own: the tx-worker's reconcilers take every project's rows.
    [database, chain] = await Promise.all([createTestDatabase({ migrate: true }), startRecorderChain({ chainId: 31_941 })]);
    db = createDatabase({ pool: createPool({ url: database.url, poolSize: 2 }) });
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
    await addChain(db, chain.anvil);
    project = await createProjectFixture(db, kek, { wallets: 0 });
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek });
    const hsm = { ...token.env, HSM_PKCS11_LIBRARY: token.library, HSM_TOKEN_LABEL: token.tokenLabel, HSM_PIN: token.pin };
    const [g, ...w] = await Promise.all([
      group.startGateway({ env: { SIGN_TIMEOUT_MS: "30000" } }),
      group.startWorker("signing-worker", "signing-worker", { env: { ...hsm, SIGNING_CONCURRENCY: "4" } }),
      group.startWorker("tx-worker", "tx-worker", { env: { ...hsm, TX_CONCURRENCY: "4" } }),
    ]);
    gateway = g.url;
    workers = w;
  }, 120_000);
  afterAll(async () => {
    await group?.stopAll();
    await deleteRedisKeys(redis, prefix).catch(() => undefined);
    await redis?.quit();
    await db?.$disconnect();
    await database?.drop();
    await token?.remove();
    await chain?.stop();
  });

  it("each worker says at start which backends it signs with", () => {
    for (const w of workers) expect(w.logs.find((l) => /worker started/.test(l.msg))).toMatchObject({ custody: ["LOCAL", "HSM"] });
  });

  it("creates an HSM wallet, signs a message with it and sends a transaction that confirms; no log line holds the PIN", async () => {
    const created = await post(gateway, "/wallet/create", { projectId: project.projectId, chainId: chain.anvil.chainId, backend: "hsm" }, project.apiKey);
    expect(created.status).toBe(200);
    expect(created.body.backend).toBe("HSM");
    const address = created.body.walletAddress as string;
    expect((await createWalletRepository(db).findByAddress(address))?.backend).toBe("HSM");

    const signed = await post(gateway, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: address, message: "from the token" }, project.apiKey);
    expect(signed.status).toBe(200);
    expect(verifyMessage("from the token", signed.body.signature as string)).toBe(address);

    await fund(chain.anvil.rpcUrl, [address]);
    const sent = await post(gateway, "/transact/sendTransaction", { projectId: project.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(9, address) }, project.apiKey);
    expect(sent.status).toBe(200);
    const tx = await waitForStatus(gateway, project.apiKey, project.projectId, sent.body.transactionId as string, ["CONFIRMED", "FAILED", "INVALID", "REVERTED"], 30_000);
    expect(tx).toMatchObject({ status: "CONFIRMED", from: address });

    for (const w of workers) expect(JSON.stringify(w.logs)).not.toContain(token.pin);
  });
});
