import { randomBytes } from "node:crypto";
import { CreateKeyCommand, SignCommand } from "@aws-sdk/client-kms";
import { Signature, Transaction, getAddress, recoverAddress, verifyMessage, verifyTypedData } from "ethers";
import { createFakeKms, derEcdsaSignature } from "@relay/testing";
import type { Kek } from "@relay/secrets";
import { createCustodySigner } from "./custody-signer";
import { createKmsBackend } from "./kms-backend";
import { newWalletKey } from "./new-wallet-key";
import { CURVE_ORDER } from "./recoverable-signature";

/**
 * AWS cannot run here: the SDK's own client mock (@relay/testing's createFakeKms) answers
 * CreateKey, GetPublicKey and Sign with DER signatures made by a real secp256k1 key per CreateKey,
 * every second one turned high-s as KMS may answer.
 */
const ARN = "arn:aws:kms:eu-west-1:111122223333:key/0b6f7c1e-1f0e-4a54-9d7e-6d3c1e9b2a10";
const kek: Kek = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };

/** A fake KMS, its backend and one key made in it through the backend. */
async function kmsWithKey() {
  const fake = createFakeKms();
  const backend = createKmsBackend(fake.client);
  const { address, keyRef } = await backend.createKey();
  return { fake, backend, address, keyRef };
}

describe("KMS custody (SDK client mock, a real secp256k1 key behind it)", () => {
  it("creates an ECC_SECG_P256K1 signing key and keeps its ARN and address", async () => {
    const fake = createFakeKms();
    const makers = { kek, kms: createKmsBackend(fake.client) };
    const key = await newWalletKey(makers, "KMS");
    const [arn] = fake.arns();
    expect(key).toEqual({ backend: "KMS", address: fake.addressOf(arn!), keyRef: arn });
    expect(fake.mock.commandCalls(CreateKeyCommand)[0]!.args[0].input).toMatchObject({ KeySpec: "ECC_SECG_P256K1", KeyUsage: "SIGN_VERIFY" });
    // Each wallet its own key.
    expect((await newWalletKey(makers, "KMS")).address).not.toBe(key.address);
    fake.restore();
  });

  it("turns 1,000 DER signatures of random digests into Ethereum signatures of the wallet, high s normalised", async () => {
    const { fake, backend, address, keyRef } = await kmsWithKey();
    const digestSigner = await backend.signerFor({ id: "w", address, keyRef });
    for (let i = 0; i < 1000; i++) {
      const digest = randomBytes(32);
      const { rs, recid } = await digestSigner.signDigest(digest);
      const signature = Signature.from({ r: `0x${Buffer.from(rs.subarray(0, 32)).toString("hex")}`, s: `0x${Buffer.from(rs.subarray(32)).toString("hex")}`, v: 27 + recid });
      expect(BigInt(signature.s)).toBeLessThanOrEqual(CURVE_ORDER / 2n);
      expect(recoverAddress(digest, signature)).toBe(address);
    }
    expect(fake.signatures()).toEqual({ total: 1000, highS: 500 });
    fake.restore();
  });

  it("signs messages, typed data and transactions through the one Signer, verifiable with ethers", async () => {
    const { fake, backend, address, keyRef } = await kmsWithKey();
    const wallet = { id: "w-kms", address, backend: "KMS" as const, encryptedKey: null, keyRef };
    const signer = createCustodySigner({ kek, kms: backend, loadKey: async (id) => (id === wallet.id ? wallet : null) });

    for (const message of ["hello", "two", "three", "four"]) {
      expect(verifyMessage(message, await signer.signMessage(wallet.id, new TextEncoder().encode(message)))).toBe(address);
    }
    const typed = {
      domain: { name: "Relay", version: "1", chainId: 31337 },
      types: { Mail: [{ name: "contents", type: "string" }] },
      primaryType: "Mail",
      message: { contents: "hi" },
    };
    expect(verifyTypedData(typed.domain, typed.types, typed.message, await signer.signTypedData(wallet.id, typed))).toBe(address);

    const to = getAddress(`0x${randomBytes(20).toString("hex")}`);
    for (const tx of [
      { type: 2 as const, chainId: 31337n, nonce: 7, to, value: 10n ** 15n, gasLimit: 21_000n, maxFeePerGas: 3n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n },
      { type: 0 as const, chainId: 1n, nonce: 0, to, value: 0n, data: "0xdeadbeef", gasLimit: 50_000n, gasPrice: 2n * 10n ** 9n },
    ]) {
      const parsed = Transaction.from(await signer.signTransaction(wallet.id, tx));
      expect(parsed.from).toBe(address);
      expect(parsed.nonce).toBe(tx.nonce);
    }
    expect(fake.signatures().highS).toBeGreaterThan(0);
    fake.restore();
  });

  it("refuses a key whose public key is not the wallet's, a key KMS does not have, and a signature that does not recover to it", async () => {
    const { fake, backend, address, keyRef } = await kmsWithKey();
    const other = (await backend.createKey()).address;
    await expect(backend.signerFor({ id: "w", address: other, keyRef })).rejects.toThrow(/is not wallet w's/);
    await expect(backend.signerFor({ id: "w", address, keyRef: ARN })).rejects.toMatchObject({ code: "CONFIG", retryable: false, message: expect.stringMatching(/NotFoundException/) });
    fake.mock.on(SignCommand).resolves({ Signature: derEcdsaSignature(5n, 7n) });
    const digestSigner = await backend.signerFor({ id: "w", address, keyRef });
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "CRYPTO" });
    fake.restore();
  });

  it("says a KMS failure can be retried when AWS throttles, not when access is denied", async () => {
    const { fake, backend, address, keyRef } = await kmsWithKey();
    const digestSigner = await backend.signerFor({ id: "w", address, keyRef });
    fake.mock.on(SignCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", $fault: "client" }));
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "UNAVAILABLE", retryable: true });
    fake.mock.on(SignCommand).rejects(Object.assign(new Error("not authorized"), { name: "AccessDeniedException", $fault: "client" }));
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "CONFIG", retryable: false });
    fake.restore();
  });

  it("refuses a KMS wallet in a process without KMS settings, naming them", async () => {
    const signer = createCustodySigner({ kek, loadKey: async () => ({ id: "w", address: getAddress(`0x${"11".repeat(20)}`), backend: "KMS", encryptedKey: null, keyRef: ARN }) });
    await expect(signer.signMessage("w", new Uint8Array([1]))).rejects.toMatchObject({ code: "CONFIG", retryable: false, message: expect.stringMatching(/KMS_REGION/) });
    await expect(newWalletKey({ kek }, "KMS")).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/KMS_REGION/) });
    await expect(newWalletKey({ kek }, "HSM")).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN/) });
  });
});
