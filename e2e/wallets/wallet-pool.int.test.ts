import { parseEther, toBeHex } from "ethers";
import { addChain, createProjectFixture, fund, setOrderCall, startRecorderChain, waitForStatus, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { sendTransaction, startHarness, type Harness } from "../support/harness";

/**
 * A project's wallets are a pool: a transaction prefers one (a hash of its id) but is sent from
 * another when its preferred wallet cannot pay, and waits (PAUSED) only when none can.
 */
describe("a project's wallets as a pool", () => {
  let h: Harness;
  let chain: RecorderChain;

  const send = async (project: ProjectFixture, id: number) => {
    const res = await sendTransaction(h.baseUrl, project, { chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(id, chain.recorder.address) });
    expect(res.status).toBe(200);
    return res.body.transactionId as string;
  };

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: 31_093 });
    h = await startHarness("wallet-pool");
    await addChain(h.db, chain.anvil);
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("sends every transaction from the funded wallet when the others are empty, none paused", async () => {
    const project = await createProjectFixture(h.db, h.kek, { wallets: 3 });
    const funded = project.wallets[1]!.address;
    await fund(chain.anvil.rpcUrl, [funded]);

    const ids = await Promise.all(Array.from({ length: 9 }, (_, i) => send(project, 100 + i)));
    const done = await Promise.all(ids.map((id) => waitForStatus(h.baseUrl, project.apiKey, project.projectId, id)));
    for (const tx of done) {
      expect(tx).toMatchObject({ status: "CONFIRMED", from: funded });
      expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    }
    expect(done.map((tx) => Number(tx.nonce)).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("pauses only while no wallet can pay, and resumes from whichever wallet is funded first", async () => {
    const project = await createProjectFixture(h.db, h.kek, { wallets: 2 });
    const id = await send(project, 200);
    const paused = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["PAUSED"]);
    expect(paused.error).toMatch(/no other wallet of the project can pay either/);
    expect(paused.nonce).toBeNull();
    // The wallet it names is its preferred one; fund the other.
    const other = project.wallets.map((w) => w.address).find((a) => !paused.error!.includes(a))!;
    await chain.recorder.provider.send("anvil_setBalance", [other, toBeHex(parseEther("1"))]);

    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 20_000);
    expect(tx).toMatchObject({ status: "CONFIRMED", from: other, nonce: "0" });
    expect(tx.history.map((c) => c.status)).toEqual(["PENDING", "PAUSED", "PENDING", "SUBMITTED", "CONFIRMED"]);
  });
});
