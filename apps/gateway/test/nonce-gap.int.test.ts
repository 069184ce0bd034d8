import { JsonRpcProvider, type Contract } from "ethers";
import { createPool, createTransactionRepository } from "@relay/db";
import { createProjectFixture, deployRecorder, startAnvil, testDatabaseUrl, type AnvilInstance, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "./harness";
import { abandonNextNonce } from "./abandoned-nonce";
import { addChain, fund, waitForStatus } from "@relay/testing";

describe("a nonce abandoned by a failed transaction", () => {
  let h: Harness;
  let anvil: AnvilInstance;
  let recorder: { address: string; contract: Contract; provider: JsonRpcProvider };
  let project: ProjectFixture;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_077 });
    recorder = await deployRecorder(anvil.rpcUrl);
    h = await startHarness("nonce-gap");
    await addChain(h.db, anvil, { stuckAfterSeconds: 1 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h.close();
    recorder.provider.destroy();
    await anvil.stop();
  });

  it("is filled with a 0-value self-transfer so the transactions after it are mined", async () => {
    const wallet = project.wallets[0]!.address;
    // A transaction that took nonce 0 and then failed before sending anything.
    const pool = createPool({ url: testDatabaseUrl() });
    const transactions = createTransactionRepository({ sql: pool, db: h.db });
    expect(await abandonNextNonce(transactions, { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, address: wallet })).toBe(0n);

    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n: 1 } },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, res.body.transactionId as string);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.nonce).toBe("1");

    const filler = (await pool.query(`SELECT hash FROM nonce_filler WHERE address = $1 AND nonce = 0`, [wallet])).rows[0] as { hash: string };
    const mined = await recorder.provider.getTransaction(filler.hash);
    expect(mined).toMatchObject({ from: wallet, to: wallet, value: 0n, nonce: 0 });
    expect((await recorder.provider.getTransactionReceipt(filler.hash))?.status).toBe(1);
    await pool.end();
  });
});
