import * as pkcs11js from "pkcs11js";
import { parseEther, toBeHex, Transaction, verifyMessage, verifyTypedData } from "ethers";
import { openPkcs11Backend, type ExternalKeyBackend } from "@relay/custody";
import { createProjectFundingRepository, createWalletRepository } from "@relay/db";
import {
  addChain,
  createProjectFixture,
  createSoftHsmToken,
  minedTransactions,
  setOrderCall,
  startRecorderChain,
  waitForStatus,
  type ProjectFixture,
  type RecorderChain,
  type SoftHsmToken,
} from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"];

/**
 * Wallets whose key a PKCS#11 token keeps (SoftHSM2, a token of this file's own), through the real
 * gateway, signing worker and tx-worker, Postgres, Redis and anvil: the key is made in the token
 * by POST /wallet/create, a transaction it signs confirms, its personal and typed-data signatures
 * verify, it tops other wallets up, and nothing reads the key out of the token.
 */
describe("HSM custody (SoftHSM2) end to end", () => {
  let token: SoftHsmToken;
  let hsm: ExternalKeyBackend;
  let h: Harness;
  let chain: RecorderChain;
  let project: ProjectFixture;
  let wallet: { address: string; id: string; keyRef: string };

  const get = async (path: string, apiKey = project.apiKey) => {
    const res = await fetch(h.baseUrl + path, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const createWallet = (body: Record<string, unknown>, p = project) => post(h.baseUrl, "/wallet/create", { projectId: p.projectId, chainId: chain.anvil.chainId, ...body }, p.apiKey);

  beforeAll(async () => {
    token = await createSoftHsmToken();
    hsm = openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: token.pin });
    chain = await startRecorderChain({ chainId: 31_940 });
    h = await startHarness("custody-hsm", {}, { custody: { hsm } });
    await addChain(h.db, chain.anvil);
    await h.startTxWorker();
    project = await createProjectFixture(h.db, h.kek, { wallets: 0 });
  });
  afterAll(async () => {
    await h?.close();
    await hsm?.close();
    await token?.remove();
    await chain?.stop();
  });

  it("POST /wallet/create with backend HSM makes the key in the token; the record and the wallet list name the backend", async () => {
    const res = await createWallet({ backend: "HSM" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: project.projectId, walletAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), backend: "HSM" });
    const address = res.body.walletAddress as string;
    const stored = (await createWalletRepository(h.db).findWithKey((await createWalletRepository(h.db).findByAddress(address))!.id))!;
    expect(stored).toMatchObject({ backend: "HSM", encryptedKey: null, keyRef: expect.stringMatching(/^[0-9a-f]{32}$/) });
    wallet = { address, id: stored.id, keyRef: stored.keyRef! };

    const listed = await get(`/wallet/project/${project.projectId}/wallets`);
    expect(listed.status).toBe(200);
    // One row per configured chain (other tests of the run add theirs): each names the backend.
    const rows = listed.body as Array<{ walletAddress: string; backend: string; chainId: number }>;
    expect(rows.filter((r) => r.chainId === chain.anvil.chainId)).toEqual([expect.objectContaining({ walletAddress: address, backend: "HSM" })]);
    expect(rows.every((r) => r.walletAddress === address && r.backend === "HSM")).toBe(true);
    // A LOCAL wallet beside it says so.
    expect((await createWallet({})).body).toMatchObject({ backend: "LOCAL" });
  });

  it("a transaction signed in the token is sent and confirms on anvil, from the HSM wallet", async () => {
    await chain.recorder.provider.send("anvil_setBalance", [wallet.address, toBeHex(parseEther("10"))]);
    // Only the HSM wallet may send: the LOCAL one made above is deactivated.
    const local = (await createWalletRepository(h.db).listByProject(project.projectId)).find((w) => w.backend === "LOCAL")!;
    await createWalletRepository(h.db).setActive(project.projectId, local.address, false);
    await new Promise((r) => setTimeout(r, 5_500)); // the gateway's wallet cache (docs/wallets.md)

    const sent = await post(h.baseUrl, "/transact/sendTransaction", { projectId: project.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(7, wallet.address) }, project.apiKey);
    expect(sent.status).toBe(200);
    const tx = await waitForStatus(h.baseUrl, project.apiKey, project.projectId, sent.body.transactionId as string, FINAL, 30_000);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.from).toBe(wallet.address);
    expect((await chain.recorder.contract.getFunction("lastOrder")()).id).toBe(7n);
    const [mined] = (await minedTransactions(chain.anvil.rpcUrl)).filter((t) => t.from === wallet.address.toLowerCase());
    const raw = await chain.recorder.provider.send("eth_getRawTransactionByHash", [mined!.hash]);
    expect(Transaction.from(raw as string).from).toBe(wallet.address);
  });

  it("personal sign and typed data signed in the token verify with ethers", async () => {
    const message = "signed inside the token ✓";
    const personal = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, { signerAddress: wallet.address, message }, project.apiKey);
    expect(personal.status).toBe(200);
    expect(verifyMessage(message, personal.body.signature as string)).toBe(wallet.address);

    const typed = {
      domain: { name: "Relay", version: "1", chainId: chain.anvil.chainId },
      types: { Mail: [{ name: "contents", type: "string" }, { name: "to", type: "address" }] },
      primaryType: "Mail",
      message: { contents: "hello", to: wallet.address },
    };
    const signed = await post(h.baseUrl, `/wallet/project/${project.projectId}/signTypedData`, { signerAddress: wallet.address, ...typed }, project.apiKey);
    expect(signed.status).toBe(200);
    expect(verifyTypedData(typed.domain, typed.types, typed.message, signed.body.signature as string)).toBe(wallet.address);
  });

  it("an HSM funding wallet tops a project's empty wallet up, and the paused call confirms", async () => {
    const operator = await createProjectFixture(h.db, h.kek, { wallets: 0 });
    const funding = (await createWallet({ backend: "hsm" }, operator)).body.walletAddress as string;
    await chain.recorder.provider.send("anvil_setBalance", [funding, toBeHex(parseEther("10"))]);
    const funded = await createProjectFixture(h.db, h.kek, { wallets: 1 }); // a new LOCAL key: 0 ETH
    await createProjectFundingRepository(h.db).set({ projectId: funded.projectId, chainId: BigInt(chain.anvil.chainId), fundingAddress: funding, targetBalanceWei: parseEther("1") });

    const sent = await post(h.baseUrl, "/transact/sendTransaction", { projectId: funded.projectId, chainId: chain.anvil.chainId, contractAddress: chain.recorder.address, ...setOrderCall(8, funded.wallets[0]!.address) }, funded.apiKey);
    expect(sent.status).toBe(200);
    const call = await waitForStatus(h.baseUrl, funded.apiKey, funded.projectId, sent.body.transactionId as string, FINAL, 30_000);
    expect(call.status).toBe("CONFIRMED");
    expect(call.history.map((c) => c.status)).toContain("PAUSED");
    const topUps = (await minedTransactions(chain.anvil.rpcUrl)).filter((t) => t.from === funding.toLowerCase());
    expect(topUps).toHaveLength(1);
    const topUp = (await chain.recorder.provider.getTransaction(topUps[0]!.hash))!;
    expect({ from: topUp.from, to: topUp.to, value: topUp.value }).toEqual({ from: funding, to: funded.wallets[0]!.address, value: parseEther("1") });
  });

  it("the private key cannot be read out of the token: CKA_VALUE is sensitive, and wrapping it is refused", () => {
    const p11 = new pkcs11js.PKCS11();
    p11.load(token.library);
    try {
      p11.C_Initialize();
    } catch (e) {
      // The backend has the module initialised in this process already: the same module, shared.
      if ((e as { code?: number }).code !== pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw e;
    }
    const slot = p11.C_GetSlotList(true).find((s) => p11.C_GetTokenInfo(s).label.trim() === token.tokenLabel)!;
    const session = p11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    const code = (f: () => unknown): number | "no error" => {
      try {
        f();
        return "no error";
      } catch (e) {
        return (e as { code: number }).code;
      }
    };
    try {
      p11.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_ID, value: Buffer.from(wallet.keyRef, "hex") },
      ]);
      const privateKey = p11.C_FindObjects(session);
      p11.C_FindObjectsFinal(session);
      expect(privateKey).not.toBeNull();

      const attribute = (type: number) => p11.C_GetAttributeValue(session, privateKey!, [{ type }])[0]!.value as Buffer;
      expect(code(() => attribute(pkcs11js.CKA_VALUE))).toBe(pkcs11js.CKR_ATTRIBUTE_SENSITIVE);
      expect(attribute(pkcs11js.CKA_EXTRACTABLE)[0]).toBe(0);
      expect(attribute(pkcs11js.CKA_SENSITIVE)[0]).toBe(1);
      expect(attribute(pkcs11js.CKA_NEVER_EXTRACTABLE)[0]).toBe(1);
      // Nor can the owner of the token change that: extractable is one-way, sensitive too.
      expect(code(() => p11.C_SetAttributeValue(session, privateKey!, [{ type: pkcs11js.CKA_EXTRACTABLE, value: true }]))).not.toBe("no error");
      expect(code(() => p11.C_SetAttributeValue(session, privateKey!, [{ type: pkcs11js.CKA_SENSITIVE, value: false }]))).not.toBe("no error");

      // Wrapping it under a key of our own, to decrypt outside, is refused.
      const wrappingKey = p11.C_GenerateKey(session, { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
        { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        { type: pkcs11js.CKA_TOKEN, value: false },
        { type: pkcs11js.CKA_WRAP, value: true },
        { type: pkcs11js.CKA_EXTRACTABLE, value: true },
      ]);
      expect(code(() => p11.C_WrapKey(session, { mechanism: pkcs11js.CKM_AES_KEY_WRAP_PAD }, wrappingKey, privateKey!, Buffer.alloc(512)))).toBe(
        pkcs11js.CKR_KEY_UNEXTRACTABLE,
      );
    } finally {
      p11.C_CloseSession(session);
    }
  });

  it("refuses a backend the workers are not configured for with a 400 naming the settings, and an unknown backend", async () => {
    const kms = await createWallet({ backend: "KMS" });
    expect(kms.status).toBe(400);
    expect(kms.body.message).toMatch(/Custody backend KMS \(AWS KMS\) is not configured on this relay: an operator sets KMS_REGION/);
    const unknown = await createWallet({ backend: "vault" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/backend must be LOCAL, HSM or KMS/);
    expect((await createWallet({ backend: 7 })).status).toBe(400);
    // Nothing of the refused requests was stored.
    expect((await createWalletRepository(h.db).listByProject(project.projectId)).map((w) => w.backend).sort()).toEqual(["HSM", "LOCAL"]);
  });

  it("never logs the token's PIN", () => {
    expect(h.logs.join("")).not.toContain(token.pin);
  });
});
