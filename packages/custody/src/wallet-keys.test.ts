import fc from "fast-check";
import { randomBytes } from "node:crypto";
import { Transaction, Wallet, getAddress, verifyMessage } from "ethers";
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

  it("keeps the most recently used keys (LRU), and reads a cold wallet once for many requests at once", async () => {
    const refs = new Map(
      ["a", "b", "c"].map((id) => {
        const key = generateWalletKey(kek);
        return [id, { id, address: key.address, encryptedKey: key.sealFor(id) }] as const;
      }),
    );
    const loads: string[] = [];
    const signer = createLocalSigner(kek, { maxCachedKeys: 2, loadKey: async (id) => (loads.push(id), refs.get(id) ?? null) });
    const sign = (id: string) => signer.signMessage(id, new TextEncoder().encode(id));

    await Promise.all(Array.from({ length: 20 }, () => sign("a")));
    expect(loads).toEqual(["a"]);
    await sign("b");
    await sign("a"); // a is now the most recently used
    await sign("c"); // evicts b, the least recently used
    await sign("a");
    expect(loads).toEqual(["a", "b", "c"]);
    await sign("b");
    expect(loads).toEqual(["a", "b", "c", "b"]);
    // A wallet that does not exist fails every request that asked at once, and is not remembered.
    await expect(Promise.all([sign("missing"), sign("missing")])).rejects.toThrow(/does not exist/);
    await expect(sign("missing")).rejects.toThrow(/does not exist/);
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

  it("signs transactions exactly as ethers does, recoverable to the wallet (EIP-1559 and EIP-155 legacy, random fields)", async () => {
    const key = generateWalletKey(kek);
    const ref = { id: "tx", address: key.address, encryptedKey: key.sealFor("tx") };
    const signer = createLocalSigner(kek, { loadKey: async () => ref });
    const wallet = openWalletKey(kek, ref);
    const word = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
    const common = fc.record({
      chainId: fc.bigInt({ min: 1n, max: (1n << 40n) - 1n }),
      nonce: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      to: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(`0x${Buffer.from(b).toString("hex")}`)),
      data: fc.uint8Array({ maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString("hex")}`),
      value: word(96),
      gasLimit: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
    });
    const request = fc.oneof(
      fc.tuple(common, word(64), word(64)).map(([c, a, b]) => ({ ...c, type: 2 as const, maxFeePerGas: a > b ? a : b, maxPriorityFeePerGas: a > b ? b : a })),
      fc.tuple(common, word(64)).map(([c, gasPrice]) => ({ ...c, type: 0 as const, gasPrice })),
    );
    await fc.assert(
      fc.asyncProperty(request, async (tx) => {
        const raw = await signer.signTransaction(ref.id, tx);
        expect(raw).toBe(await wallet.signTransaction(tx));
        expect(Transaction.from(raw).from).toBe(key.address);
      }),
      { numRuns: 200, seed: 20261123 },
    );
  });
});
