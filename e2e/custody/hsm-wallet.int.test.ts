import * as pkcs11js from "pkcs11js";
import { openPkcs11Backend } from "@relay/custody";
import { createWalletRepository } from "@relay/db";
import { createSoftHsmToken, type SoftHsmToken } from "@relay/testing";
import { describeExternalKeyWallet } from "./external-key-wallet.suite";

/**
 * Wallets whose key a PKCS#11 token keeps (SoftHSM2, a token of this file's own), end to end: what
 * every external backend does (external-key-wallet.suite.ts), and what is the token's own: nothing
 * reads the key out of it, and its PIN is never logged.
 */
describe("HSM custody (SoftHSM2) end to end", () => {
  let token: SoftHsmToken;
  const suite = describeExternalKeyWallet({
    backend: "HSM",
    chainId: 31_940,
    keyRef: /^[0-9a-f]{32}$/,
    open: async () => {
      token = await createSoftHsmToken();
      const backend = openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: token.pin });
      return {
        backend,
        close: async () => {
          await backend.close();
          await token.remove();
        },
      };
    },
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
        { type: pkcs11js.CKA_ID, value: Buffer.from(suite.wallet.keyRef, "hex") },
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
    const kms = await suite.createWallet({ backend: "KMS" });
    expect(kms.status).toBe(400);
    expect(kms.body.message).toMatch(/Custody backend KMS \(AWS KMS\) is not configured on this relay: an operator sets KMS_REGION/);
    const unknown = await suite.createWallet({ backend: "vault" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/backend must be LOCAL, HSM or KMS/);
    expect((await suite.createWallet({ backend: 7 })).status).toBe(400);
    // Nothing of the refused requests was stored.
    expect((await createWalletRepository(suite.h.db).listByProject(suite.project.projectId)).map((w) => w.backend).sort()).toEqual(["HSM", "LOCAL"]);
  });

  it("never logs the token's PIN", () => {
    expect(suite.h.logs.join("")).not.toContain(token.pin);
  });
});
