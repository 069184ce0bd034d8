import { randomBytes } from "node:crypto";
import { CreateKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from "@aws-sdk/client-kms";
import { mockClient } from "aws-sdk-client-mock";
import secp256k1 from "secp256k1";
import { Signature, Transaction, computeAddress, getAddress, recoverAddress, verifyMessage, verifyTypedData } from "ethers";
import { createCustodySigner } from "./custody-signer";
import { createKmsBackend } from "./kms-backend";
import { newWalletKey } from "./new-wallet-key";
import { CURVE_ORDER } from "./recoverable-signature";
import type { Kek } from "@relay/secrets";

/**
 * AWS cannot run here: the SDK's own client mock answers CreateKey, GetPublicKey and Sign, with
 * DER signatures made by a real secp256k1 key, half of them turned high-s as KMS may answer.
 */
const ARN = "arn:aws:kms:eu-west-1:111122223333:key/0b6f7c1e-1f0e-4a54-9d7e-6d3c1e9b2a10";
const SPKI_PREFIX = Buffer.from("3056301006072a8648ce3d020106052b8104000a034200", "hex");
const kek: Kek = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };

const derInteger = (n: bigint) => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const body = Buffer.from(hex, "hex");
  return Buffer.concat([Buffer.from([0x02, body.length + (body[0]! & 0x80 ? 1 : 0)]), body[0]! & 0x80 ? Buffer.from([0]) : Buffer.alloc(0), body]);
};
const derSignature = (r: bigint, s: bigint) => {
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
};

function fakeKms() {
  const privateKey = randomBytes(32);
  const point = Buffer.from(secp256k1.publicKeyCreate(privateKey, false));
  const kms = mockClient(KMSClient);
  let signs = 0;
  let highS = 0;
  kms.on(CreateKeyCommand).resolves({ KeyMetadata: { KeyId: "0b6f7c1e", Arn: ARN } });
  kms.on(GetPublicKeyCommand, { KeyId: ARN }).resolves({ PublicKey: Buffer.concat([SPKI_PREFIX, point]), KeySpec: "ECC_SECG_P256K1" });
  kms.on(SignCommand).callsFake((input: { KeyId: string; Message: Uint8Array; MessageType: string; SigningAlgorithm: string }) => {
    expect(input).toMatchObject({ KeyId: ARN, MessageType: "DIGEST", SigningAlgorithm: "ECDSA_SHA_256" });
    const { signature } = secp256k1.ecdsaSign(input.Message, privateKey);
    const r = BigInt(`0x${Buffer.from(signature.subarray(0, 32)).toString("hex")}`);
    let s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString("hex")}`);
    if (signs++ % 2 === 1) {
      s = CURVE_ORDER - s; // the mirrored signature, as valid as ECDSA, refused by Ethereum
      highS++;
    }
    return { KeyId: ARN, Signature: derSignature(r, s), SigningAlgorithm: "ECDSA_SHA_256" };
  });
  return { kms, address: computeAddress(`0x${point.toString("hex")}`), highS: () => highS };
}

describe("KMS custody (SDK client mock, a real secp256k1 key behind it)", () => {
  it("creates an ECC_SECG_P256K1 signing key and keeps its ARN and address", async () => {
    const fake = fakeKms();
    const key = await newWalletKey({ kek, kms: createKmsBackend(new KMSClient({ region: "eu-west-1" })) }, "KMS");
    expect(key).toEqual({ backend: "KMS", address: fake.address, keyRef: ARN });
    expect(fake.kms.commandCalls(CreateKeyCommand)[0]!.args[0].input).toMatchObject({ KeySpec: "ECC_SECG_P256K1", KeyUsage: "SIGN_VERIFY" });
    fake.kms.restore();
  });

  it("turns 1,000 DER signatures of random digests into Ethereum signatures of the wallet, high s normalised", async () => {
    const fake = fakeKms();
    const backend = createKmsBackend(new KMSClient({ region: "eu-west-1" }));
    const digestSigner = await backend.signerFor({ id: "w", address: fake.address, keyRef: ARN });
    for (let i = 0; i < 1000; i++) {
      const digest = randomBytes(32);
      const { rs, recid } = await digestSigner.signDigest(digest);
      const signature = Signature.from({ r: `0x${Buffer.from(rs.subarray(0, 32)).toString("hex")}`, s: `0x${Buffer.from(rs.subarray(32)).toString("hex")}`, v: 27 + recid });
      expect(BigInt(signature.s)).toBeLessThanOrEqual(CURVE_ORDER / 2n);
      expect(recoverAddress(digest, signature)).toBe(fake.address);
    }
    expect(fake.highS()).toBe(500);
    fake.kms.restore();
  });

  it("signs messages, typed data and transactions through the one Signer, verifiable with ethers", async () => {
    const fake = fakeKms();
    const wallet = { id: "w-kms", address: fake.address, backend: "KMS" as const, encryptedKey: null, keyRef: ARN };
    const signer = createCustodySigner({ kek, kms: createKmsBackend(new KMSClient({ region: "eu-west-1" })), loadKey: async (id) => (id === wallet.id ? wallet : null) });

    for (const message of ["hello", "two", "three", "four"]) {
      expect(verifyMessage(message, await signer.signMessage(wallet.id, new TextEncoder().encode(message)))).toBe(fake.address);
    }
    const typed = {
      domain: { name: "Relay", version: "1", chainId: 31337 },
      types: { Mail: [{ name: "contents", type: "string" }] },
      primaryType: "Mail",
      message: { contents: "hi" },
    };
    expect(verifyTypedData(typed.domain, typed.types, typed.message, await signer.signTypedData(wallet.id, typed))).toBe(fake.address);

    const to = getAddress(`0x${randomBytes(20).toString("hex")}`);
    for (const tx of [
      { type: 2 as const, chainId: 31337n, nonce: 7, to, value: 10n ** 15n, gasLimit: 21_000n, maxFeePerGas: 3n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n },
      { type: 0 as const, chainId: 1n, nonce: 0, to, value: 0n, data: "0xdeadbeef", gasLimit: 50_000n, gasPrice: 2n * 10n ** 9n },
    ]) {
      const parsed = Transaction.from(await signer.signTransaction(wallet.id, tx));
      expect(parsed.from).toBe(fake.address);
      expect(parsed.nonce).toBe(tx.nonce);
    }
    fake.kms.restore();
  });

  it("refuses a key whose public key is not the wallet's, and a signature that does not recover to it", async () => {
    const fake = fakeKms();
    const backend = createKmsBackend(new KMSClient({ region: "eu-west-1" }));
    const other = computeAddress(`0x${Buffer.from(secp256k1.publicKeyCreate(randomBytes(32), false)).toString("hex")}`);
    await expect(backend.signerFor({ id: "w", address: other, keyRef: ARN })).rejects.toThrow(/is not wallet w's/);
    fake.kms.on(SignCommand).resolves({ Signature: derSignature(5n, 7n) });
    const digestSigner = await backend.signerFor({ id: "w", address: fake.address, keyRef: ARN });
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "CRYPTO" });
    fake.kms.restore();
  });

  it("says a KMS failure can be retried when AWS throttles, not when access is denied", async () => {
    const fake = fakeKms();
    const backend = createKmsBackend(new KMSClient({ region: "eu-west-1" }));
    const digestSigner = await backend.signerFor({ id: "w", address: fake.address, keyRef: ARN });
    fake.kms.on(SignCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", $fault: "client" }));
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "UNAVAILABLE", retryable: true });
    fake.kms.on(SignCommand).rejects(Object.assign(new Error("not authorized"), { name: "AccessDeniedException", $fault: "client" }));
    await expect(digestSigner.signDigest(randomBytes(32))).rejects.toMatchObject({ code: "CONFIG", retryable: false });
    fake.kms.restore();
  });

  it("refuses a KMS wallet in a process without KMS settings, naming them", async () => {
    const signer = createCustodySigner({ kek, loadKey: async () => ({ id: "w", address: getAddress(`0x${"11".repeat(20)}`), backend: "KMS", encryptedKey: null, keyRef: ARN }) });
    await expect(signer.signMessage("w", new Uint8Array([1]))).rejects.toMatchObject({ code: "CONFIG", retryable: false, message: expect.stringMatching(/KMS_REGION/) });
    await expect(newWalletKey({ kek }, "KMS")).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/KMS_REGION/) });
    await expect(newWalletKey({ kek }, "HSM")).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/HSM_PKCS11_LIBRARY, HSM_TOKEN_LABEL and HSM_PIN/) });
  });
});
