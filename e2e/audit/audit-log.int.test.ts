import { addChain, createProjectFixture, fund, setOrderCall, startRecorderChain, waitForStatus, type ProjectFixture, type RecorderChain } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const CHAIN_ID = 31_990;

/**
 * The audit log as the whole stack writes it: the gateway, the signing worker and the tx-worker
 * on the real Postgres, Redis and anvil. Each action a project's API key takes over HTTP leaves one
 * entry naming that key.
 */
describe("audit log: actions over HTTP", () => {
  let h: Harness;
  let chain: RecorderChain;
  let project: ProjectFixture;

  const entries = (where: { projectId?: string; subject?: string; walletAddress?: string } = {}) =>
    h.db.auditLog.findMany({ where: { projectId: project.projectId, ...where }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    chain = await startRecorderChain({ chainId: CHAIN_ID });
    h = await startHarness("audit-log");
    await addChain(h.db, chain.anvil);
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    await fund(chain.anvil.rpcUrl, [project.wallets[0]!.address]);
    await h.startWorker();
    await h.startTxWorker();
  });
  afterAll(async () => {
    await h?.close();
    await chain?.stop();
  });

  it("records a personal signature and a typed-data signature, each by the key that asked", async () => {
    const signerAddress = project.wallets[0]!.address;
    const personal = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress, message: "audited" }, project.apiKey);
    expect(personal.status).toBe(200);
    const typed = await post(
      h.baseUrl,
      `/wallet/project/${project.projectId}/signTypedData`,
      {
        signerAddress,
        domain: { name: "Audit", version: "1", chainId: 1 },
        types: { Note: [{ name: "text", type: "string" }] },
        primaryType: "Note",
        message: { text: "audited" },
      },
      project.apiKey,
    );
    expect(typed.status).toBe(200);

    const forPersonal = await entries({ subject: personal.body.signatureId as string });
    expect(forPersonal).toEqual([
      expect.objectContaining({ actorType: "api_key", actorId: project.apiKeyId, action: "signature.message", walletAddress: signerAddress }),
    ]);
    const forTyped = await entries({ subject: typed.body.signatureId as string });
    expect(forTyped).toEqual([
      expect.objectContaining({ actorType: "api_key", actorId: project.apiKeyId, action: "signature.typed_data", walletAddress: signerAddress }),
    ]);
  });

  it("records the signed transaction by the key that sent it", async () => {
    const res = await post(
      h.baseUrl,
      "/transact/sendTransaction",
      { projectId: project.projectId, chainId: CHAIN_ID, contractAddress: chain.recorder.address, ...setOrderCall(7, chain.recorder.address) },
      project.apiKey,
    );
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, id, ["CONFIRMED", "REVERTED", "INVALID", "FAILED"], 30_000);
    expect(tx.status).toBe("CONFIRMED");
    const signed = await entries({ subject: id });
    expect(signed.length).toBe(tx.attempts.length);
    expect(signed[0]).toEqual(
      expect.objectContaining({ actorType: "api_key", actorId: project.apiKeyId, action: "transaction.signed", walletAddress: project.wallets[0]!.address }),
    );
    expect(signed[0]!.details).toEqual(expect.objectContaining({ kind: "CALL", chainId: String(CHAIN_ID), nonce: "0", hash: tx.attempts[0]!.hash }));
  });

  it("records a wallet created, deactivated, activated and retired over HTTP, by the key that asked", async () => {
    const created = await post(h.baseUrl, "/wallet/create", { projectId: project.projectId, chainId: CHAIN_ID }, project.apiKey);
    expect(created.status).toBe(200);
    const walletAddress = created.body.walletAddress as string;
    for (let i = 0; i < 2; i++) {
      expect((await post(h.baseUrl, "/wallet/toggleIsActive", { projectId: project.projectId, walletAddress }, project.apiKey)).status).toBe(200);
    }
    expect((await post(h.baseUrl, "/wallet/retire", { projectId: project.projectId, walletAddress }, project.apiKey)).status).toBe(200);
    // Retiring a retired wallet changes nothing, and records nothing.
    expect((await post(h.baseUrl, "/wallet/retire", { projectId: project.projectId, walletAddress }, project.apiKey)).status).toBe(200);

    const log = await entries({ walletAddress });
    expect(log.map((e) => [e.action, e.actorType, e.actorId])).toEqual([
      ["wallet.created", "api_key", project.apiKeyId],
      ["wallet.deactivated", "api_key", project.apiKeyId],
      ["wallet.activated", "api_key", project.apiKeyId],
      ["wallet.retired", "api_key", project.apiKeyId],
    ]);
    expect(new Set(log.map((e) => e.subject)).size).toBe(1);
  });

  it("records nothing for a request that is refused", async () => {
    const other = await createProjectFixture(h.db, h.kek, { wallets: 1 });
    const before = (await entries()).length;
    const refused = await post(h.baseUrl, "/wallet/toggleIsActive", { projectId: other.projectId, walletAddress: other.wallets[0]!.address }, project.apiKey);
    expect(refused.status).toBe(403);
    const unknown = await post(h.baseUrl, "/wallet/toggleIsActive", { projectId: project.projectId, walletAddress: `0x${"12".repeat(20)}` }, project.apiKey);
    expect(unknown.status).toBe(404);
    expect((await entries()).length).toBe(before);
    expect(await h.db.auditLog.count({ where: { projectId: other.projectId } })).toBe(0);
  });
});
