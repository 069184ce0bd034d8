import { randomBytes } from "node:crypto";
import { loadCliCustodyConfig, loadSigningWorkerConfig, loadTxWorkerConfig } from "./index";

const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
const hsm = { HSM_PKCS11_LIBRARY: "/usr/lib/softhsm/libsofthsm2.so", HSM_TOKEN_LABEL: "relay", HSM_PIN: "s3cret-pin" };

describe("custody settings", () => {
  it("configures no HSM or KMS unless asked to", () => {
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).custody).toEqual({});
    expect(loadCliCustodyConfig({})).toEqual({});
  });

  it("reads an HSM and a KMS", () => {
    expect(loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY, ...hsm, KMS_REGION: "eu-west-1", KMS_ENDPOINT: "http://127.0.0.1:4566" }).custody).toEqual({
      hsm: { library: hsm.HSM_PKCS11_LIBRARY, tokenLabel: "relay", pin: "s3cret-pin", sessions: 4 },
      kms: { region: "eu-west-1", endpoint: "http://127.0.0.1:4566" },
    });
  });

  it("refuses part of an HSM's settings, naming what is missing, never showing the PIN", () => {
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, HSM_PKCS11_LIBRARY: hsm.HSM_PKCS11_LIBRARY, HSM_PIN: hsm.HSM_PIN })).toThrow(/HSM_TOKEN_LABEL \(unset\): an HSM needs HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL, HSM_PIN together/);
    try {
      loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, ...hsm, HSM_SESSIONS: "none" });
      throw new Error("expected a rejection");
    } catch (e) {
      expect((e as Error).message).toMatch(/HSM_SESSIONS/);
      expect((e as Error).message).not.toContain("s3cret-pin");
    }
    expect(() => loadCliCustodyConfig({ KMS_REGION: "Europe West" })).toThrow(/KMS_REGION \("Europe West"\): must be an AWS region/);
  });
});
