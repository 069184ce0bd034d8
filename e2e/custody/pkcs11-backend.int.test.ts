import { randomBytes } from "node:crypto";
import { Signature, getAddress, recoverAddress } from "ethers";
import { CURVE_ORDER, openPkcs11Backend, type ExternalKeyBackend } from "@relay/custody";
import { createSoftHsmToken, type SoftHsmToken } from "@relay/testing";

/** The PKCS#11 backend alone against a SoftHSM2 token of this file's own. */
describe("PKCS#11 backend (SoftHSM2)", () => {
  let token: SoftHsmToken;
  let hsm: ExternalKeyBackend;

  beforeAll(async () => {
    token = await createSoftHsmToken();
    hsm = openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: token.pin, sessions: 2 });
  });
  afterAll(async () => {
    await hsm?.close();
    await token?.remove();
  });

  it("signs 300 random digests at once on two sessions; each is low-s and recovers to the key's address", async () => {
    const key = await hsm.createKey();
    const signer = await hsm.signerFor({ id: "w", address: key.address, keyRef: key.keyRef });
    const digests = Array.from({ length: 300 }, () => randomBytes(32));
    const started = performance.now();
    const signatures = await Promise.all(digests.map((d) => signer.signDigest(d)));
    const msEach = (performance.now() - started) / digests.length;
    signatures.forEach(({ rs, recid }, i) => {
      const hex = Buffer.from(rs).toString("hex");
      expect(BigInt(`0x${hex.slice(64)}`)).toBeLessThanOrEqual(CURVE_ORDER / 2n);
      expect(recoverAddress(digests[i]!, Signature.from({ r: `0x${hex.slice(0, 64)}`, s: `0x${hex.slice(64)}`, v: 27 + recid }))).toBe(key.address);
    });
    // ECDSA with a random nonce: the token's signatures of one digest differ, and both verify.
    const again = await signer.signDigest(digests[0]!);
    expect(Buffer.from(again.rs).equals(Buffer.from(signatures[0]!.rs))).toBe(false);
    expect(msEach).toBeLessThan(20);
  });

  it("refuses a key reference the token does not have, and a key that is not the wallet's", async () => {
    await expect(hsm.signerFor({ id: "w", address: getAddress(`0x${"11".repeat(20)}`), keyRef: randomBytes(16).toString("hex") })).rejects.toMatchObject({
      code: "CONFIG",
      message: expect.stringMatching(/has no key with CKA_ID [0-9a-f]{32} \(wallet w\): is HSM_TOKEN_LABEL the token/),
    });
    const key = await hsm.createKey();
    await expect(hsm.signerFor({ id: "w", address: getAddress(`0x${"11".repeat(20)}`), keyRef: key.keyRef })).rejects.toMatchObject({ code: "CRYPTO" });
  });

  it("a wrong PIN or token label stops the backend at start, naming the variable and never the PIN", async () => {
    // A PKCS#11 module is initialised once per process: the backend above closes first.
    await hsm.close();
    const wrongPin = `${token.pin}x`;
    let message = "";
    try {
      openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: wrongPin });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/HSM: logging in to token "relay-test-[0-9a-f]+" \(HSM_PIN\) failed \(CKR_PIN_INCORRECT\)/);
    expect(message).not.toContain(wrongPin);
    expect(() => openPkcs11Backend({ library: token.library, tokenLabel: "no-such-token", pin: token.pin })).toThrow(/no token labelled "no-such-token".*\(HSM_TOKEN_LABEL\)/);
    expect(() => openPkcs11Backend({ library: "/nonexistent/libpkcs11.so", tokenLabel: "x", pin: "y" })).toThrow(/loading the PKCS#11 module \/nonexistent\/libpkcs11.so failed/);
    // Each failure left the module as it found it: a right configuration opens.
    hsm = openPkcs11Backend({ library: token.library, tokenLabel: token.tokenLabel, pin: token.pin });
  });
});
