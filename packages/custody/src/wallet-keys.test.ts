import { randomBytes } from "node:crypto";
import { Transaction, Wallet, verifyMessage } from "ethers";
import { generateWalletKey, importWalletKey, openWalletKey } from "./wallet-keys";
import { createLocalSigner } from "./signer";
import type { Kek } from "@relay/secrets";

const kek: Kek = { activeKeyId: "k1", keys: new Map([["k1", randomBytes(32)]]) };

describe("wallet keys", () => {
  it("seals a generated key for one wallet record and opens it only there", () => {
    const key = generateWalletKey(kek);
    const sealed = key.sealFor("w1");
    expect(openWalletKey(kek, { id: "w1", address: key.address, encryptedKey: sealed }).address).toBe(key.address);
    expect(() => openWalletKey(kek, { id: "w2", address: key.address, encryptedKey: sealed })).toThrow(/failed authentication/);
  });

  it("imports a private key with or without 0x, and rejects bad ones without echoing them", () => {
    const wallet = Wallet.createRandom();
    expect(importWalletKey(kek, wallet.privateKey).address).toBe(wallet.address);
    expect(importWalletKey(kek, wallet.privateKey.slice(2)).address).toBe(wallet.address);
    const bad = "0x" + "zz".repeat(32);
    expect(() => importWalletKey(kek, bad)).toThrow(/32 bytes as hex/);
    try {
      importWalletKey(kek, "0x" + "00".repeat(32));
      throw new Error("expected a rejection");
    } catch (e) {
      expect((e as Error).message).toMatch(/not a valid secp256k1 key/);
      expect((e as Error).message).not.toContain("00".repeat(32));
    }
  });

  it("signs EIP-191 messages that verify to the wallet's address", async () => {
    const key = generateWalletKey(kek);
    const ref = { id: "w", address: key.address, encryptedKey: key.sealFor("w") };
    const loads: string[] = [];
    const signer = createLocalSigner(kek, { loadKey: async (id) => (loads.push(id), id === "w" ? ref : null) });
    const message = "héllo 0xdead";
    const signature = await signer.signMessage("w", new TextEncoder().encode(message));
    expect(verifyMessage(message, signature)).toBe(key.address);
    await signer.signMessage("w", new TextEncoder().encode("again"));
    expect(loads).toEqual(["w"]); // opened once, then cached
    await expect(signer.signMessage("missing", new Uint8Array())).rejects.toThrow(/does not exist/);
  });

  it("produces exactly ethers' signature (RFC 6979), for many messages and keys", async () => {
    for (let i = 0; i < 50; i++) {
      const key = generateWalletKey(kek);
      const ref = { id: `w${i}`, address: key.address, encryptedKey: key.sealFor(`w${i}`) };
      const signer = createLocalSigner(kek, { loadKey: async () => ref });
      const message = new TextEncoder().encode(`message ${i} ${"✓".repeat(i)}`);
      const expected = await openWalletKey(kek, ref).signMessage(message);
      expect(await signer.signMessage(ref.id, message)).toBe(expected);
    }
  });

  it("signs transactions exactly as ethers does, recoverable to the wallet", async () => {
    const key = generateWalletKey(kek);
    const ref = { id: "tx", address: key.address, encryptedKey: key.sealFor("tx") };
    const signer = createLocalSigner(kek, { loadKey: async () => ref });
    const request = {
      type: 2,
      chainId: 31337n,
      nonce: 7,
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      data: "0x1234",
      value: 0n,
      gasLimit: 50_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    };
    const raw = await signer.signTransaction(ref.id, request);
    expect(raw).toBe(await openWalletKey(kek, ref).signTransaction(request));
    expect(Transaction.from(raw).from).toBe(key.address);
    const legacy = { ...request, type: 0, gasPrice: 1_000_000_000n, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined };
    expect(Transaction.from(await signer.signTransaction(ref.id, legacy)).from).toBe(key.address);
  });
});
