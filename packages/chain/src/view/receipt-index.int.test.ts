import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Wallet, type JsonRpcProvider } from "ethers";
import { createLogger } from "@relay/core";
import { createProviders } from "../rpc/providers";
import { ANVIL_FUNDED_KEY, startAnvil, type AnvilInstance } from "@relay/testing";
import { createReceiptIndex } from "./receipt-index";

const logger = createLogger({ name: "test", level: "silent" });

describe("receipt index", () => {
  let anvil: AnvilInstance;
  const providers = createProviders({ timeoutMs: 5000 });
  const senders = createProviders({ timeoutMs: 5000 });
  let sender: JsonRpcProvider;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_417 });
    sender = senders.get(31_417n, anvil.rpcUrl);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    providers.destroy();
    senders.destroy();
    await anvil.stop();
  });

  /** A 0-value self-transfer from anvil's funded account, mined at once (automine): its hash. Sent through its own provider. */
  const send = async (): Promise<string> => {
    const wallet = new Wallet(ANVIL_FUNDED_KEY, sender);
    const tx = await wallet.sendTransaction({ to: wallet.address, value: 0n });
    await tx.wait();
    return tx.hash;
  };

  /** Counts the JSON-RPC methods the index asks for. */
  const counting = (provider: JsonRpcProvider) => {
    const calls: string[] = [];
    const send = provider.send.bind(provider);
    jest.spyOn(provider, "send").mockImplementation((method, params) => (calls.push(method), send(method, params)));
    return calls;
  };

  test("finds attempts mined after it began from each block's receipts, and says not mined without asking by hash", async () => {
    const provider = providers.get(31_417n, anvil.rpcUrl);
    const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
    expect(await index.receiptOf(`0x${"11".repeat(32)}`, new Date(Date.now() + 60_000))).toBeNull(); // starts the index
    const calls = counting(provider);

    const hashes = [await send(), await send()];
    const sentAt = new Date(Date.now() + 1); // after coverage began
    const receipts = await Promise.all(hashes.map((h) => index.receiptOf(h, sentAt)));
    expect(receipts.map((r) => r?.hash)).toEqual(hashes.map((h) => h.toLowerCase()));
    expect(receipts.every((r) => r?.status === 1)).toBe(true);
    expect(receipts[1]!.blockNumber).toBe(receipts[0]!.blockNumber + 1);
    expect(await index.receiptOf(`0x${"22".repeat(32)}`, sentAt)).toBeNull();
    expect(calls.filter((m) => m === "eth_getBlockReceipts")).toHaveLength(2);
    expect(calls).not.toContain("eth_getTransactionReceipt");
    jest.restoreAllMocks();
  });

  test("keeps what the relay records of a receipt, the same from a block's receipts and by hash", async () => {
    const provider = providers.get(31_417n, anvil.rpcUrl);
    const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
    expect(await index.receiptOf(`0x${"66".repeat(32)}`, new Date(Date.now() + 60_000))).toBeNull(); // starts the index
    const hash = await send();
    const node = (await provider.send("eth_getTransactionReceipt", [hash])) as { blockHash: string; blockNumber: string; gasUsed: string; effectiveGasPrice: string; logs: unknown[] };
    const expected = {
      hash: hash.toLowerCase(),
      blockNumber: Number(node.blockNumber),
      status: 1,
      blockHash: node.blockHash.toLowerCase(),
      gasUsed: BigInt(node.gasUsed),
      effectiveGasPrice: BigInt(node.effectiveGasPrice),
      l1Fee: null, // anvil reports none
      logCount: node.logs.length,
    };
    expect(expected.gasUsed).toBe(21_000n);
    expect(await index.receiptOf(hash, new Date(Date.now() + 1))).toEqual(expected);
    expect(await index.freshReceiptOf(hash)).toEqual(expected);
  });

  test("an attempt sent before the index covered the chain is looked up by hash", async () => {
    const provider = providers.get(31_417n, anvil.rpcUrl);
    const earlier = await send();
    await send(); // the index will start at the block after the one holding `earlier`
    const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
    const calls = counting(provider);
    const receipt = await index.receiptOf(earlier, new Date(Date.now() - 60_000));
    expect(receipt).toMatchObject({ hash: earlier.toLowerCase(), status: 1 });
    expect(calls).toContain("eth_getTransactionReceipt");
    jest.restoreAllMocks();
  });

  test("a node without eth_getBlockReceipts is asked by hash", async () => {
    // A proxy that refuses eth_getBlockReceipts as an unknown method and forwards the rest.
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string } | { id: number; method: string }[];
      const calls = Array.isArray(body) ? body : [body];
      const answers = await Promise.all(
        calls.map(async (c) =>
          c.method === "eth_getBlockReceipts"
            ? { jsonrpc: "2.0", id: c.id, error: { code: -32601, message: "the method eth_getBlockReceipts does not exist/is not available" } }
            : (await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(c) })).json(),
        ),
      );
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const local = createProviders({ timeoutMs: 5000 });
    try {
      const provider = local.get(31_417n, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
      await index.receiptOf(`0x${"33".repeat(32)}`, new Date()); // learns the method is missing
      const hash = await send();
      expect(await index.receiptOf(hash, new Date(Date.now() + 60_000))).toMatchObject({ hash: hash.toLowerCase(), status: 1 });
    } finally {
      local.destroy();
      server.close();
    }
  });

  test("restarts at the head when it fell too far behind, and looks up by hash what it skipped", async () => {
    const provider = providers.get(31_417n, anvil.rpcUrl);
    const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger, maxCatchUpBlocks: 1 });
    await index.receiptOf(`0x${"44".repeat(32)}`, new Date());
    const sentAt = new Date(Date.now() + 1);
    const skipped = await send();
    await send();
    await send(); // three blocks on: more than it would catch up on
    const calls = counting(provider);
    expect(await index.receiptOf(skipped, sentAt)).toMatchObject({ hash: skipped.toLowerCase() });
    expect(calls.filter((m) => m === "eth_getBlockReceipts")).toHaveLength(1); // the new head only
    expect(calls).toContain("eth_getTransactionReceipt");
    jest.restoreAllMocks();
  });

  test("after a reorganisation, answers where the node has an attempt now, not where it was indexed", async () => {
    const provider = providers.get(31_417n, anvil.rpcUrl);
    const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
    await index.receiptOf(`0x${"55".repeat(32)}`, new Date());
    const sentAt = new Date(Date.now() + 1);
    const moved = await send();
    const dropped = await send();
    const before = await Promise.all([moved, dropped].map((h) => index.receiptOf(h, sentAt)));
    expect(before.every((r) => r !== null)).toBe(true);

    // Both blocks replaced by empty ones (anvil does not put their transactions back into its pool);
    // then `moved` is sent again, its same signed bytes, and mined in the next block.
    const raw = (await sender.send("eth_getRawTransactionByHash", [moved])) as string;
    await sender.send("anvil_reorg", [2, []]);
    await sender.send("eth_sendRawTransaction", [raw]);
    const now = await sender.getTransactionReceipt(moved);
    expect(now!.blockNumber).toBe(before[1]!.blockNumber + 1);

    expect(await index.receiptOf(moved, sentAt)).toMatchObject({ hash: moved.toLowerCase(), blockNumber: now!.blockNumber });
    expect(await index.receiptOf(dropped, sentAt)).toBeNull();
  });

  test("gives up a refresh on a node whose receipts never match its headers, instead of re-reading the head for ever", async () => {
    const local = createProviders({ timeoutMs: 5000 });
    const provider = local.get(31_417n, anvil.rpcUrl);
    try {
      const index = createReceiptIndex({ provider, head: () => provider.getBlockNumber(), marginMs: 0, logger });
      await index.receiptOf(`0x${"66".repeat(32)}`, new Date());
      const sentAt = new Date(Date.now() + 1);
      const hash = await send();
      // Every block's receipts claim another block hash than its header: a reorganisation every read.
      const reads: string[] = [];
      const send0 = provider.send.bind(provider);
      jest.spyOn(provider, "send").mockImplementation(async (method, params) => {
        reads.push(method);
        const answer = (await send0(method, params)) as unknown;
        if (method !== "eth_getBlockReceipts" || !Array.isArray(answer)) return answer;
        return answer.map((r: Record<string, unknown>) => ({ ...r, blockHash: `0x${"ab".repeat(32)}` }));
      });
      // Answered (by hash, the index having given up), not held by an endless loop.
      expect(await index.receiptOf(hash, sentAt)).toMatchObject({ hash: hash.toLowerCase() });
      expect(reads.filter((m) => m === "eth_getBlockReceipts").length).toBeLessThanOrEqual(4);
    } finally {
      jest.restoreAllMocks();
      local.destroy();
    }
  });
});
