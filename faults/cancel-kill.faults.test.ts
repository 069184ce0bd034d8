import { Transaction } from "ethers";
import { startRpcInterceptor, type RpcInterceptor } from "@relay/testing";
import { DEFAULT_PLAN, runScenario, sleep } from "./support/scenario";
import { startStack, type Stack } from "./support/stack";

/** How many times the tx-worker is killed with a replacement signed and stored but not broadcast. */
const KILLS = 3;

/**
 * Scenario g: cancels and speed-ups in the load, and the tx-worker SIGKILLed between signing a
 * replacement (a cancel's self-transfer, a speed-up, a stuck transaction's) and broadcasting it:
 * the RPC in front of the node holds the first broadcast of each new attempt at a nonce it has seen
 * another attempt at, kills the tx-worker, and answers nothing to the dead process. The attempt
 * was stored before the broadcast, so the next tx-worker sends those same bytes; the invariants
 * hold, and a cancelled transaction's call never ran.
 */
describe("fault: cancels and speed-ups, the tx-worker killed between signing a replacement and broadcasting it", () => {
  let stack: Stack;
  let rpc: RpcInterceptor;
  const killedAt: string[] = [];

  beforeAll(async () => {
    const firstAt = new Map<string, string>();
    const held = new Set<string>();
    stack = await startStack({
      name: "cancel-kill",
      chainId: 41_019,
      // Blocks every 2 s: a cancel or speed-up asked for soon after acceptance finds the transaction
      // SUBMITTED and unmined often enough to replace it.
      blockTimeSeconds: 2,
      wallets: 2,
      rpcUrlFor: async (upstream) => {
        rpc = await startRpcInterceptor(upstream, async (call) => {
          if (call.method !== "eth_sendRawTransaction" || killedAt.length >= KILLS) return undefined;
          const tx = Transaction.from(call.params[0] as string);
          const key = `${tx.from}|${tx.nonce}`;
          const first = firstAt.get(key);
          if (!first) firstAt.set(key, tx.hash!);
          if (!first || first === tx.hash || held.has(tx.hash!)) return undefined;
          held.add(tx.hash!);
          killedAt.push(`${tx.to === tx.from && tx.data === "0x" ? "cancel" : "replacement"} at nonce ${tx.nonce}`);
          await stack.restartWorker("tx");
          return { error: { code: -32000, message: "the sender was killed" } };
        });
        return rpc.url;
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await rpc?.close();
  });

  it("finishes every accepted request once; cancelled calls never ran; replacements killed before broadcast are sent by the next worker", async () => {
    const report = await runScenario(
      stack,
      async (load) => {
        while (!load.done()) await sleep(250);
        return { killed: killedAt.join(", ") || "none" };
      },
      { plan: { ...DEFAULT_PLAN, cancels: 8, speedUps: 8 } },
    );
    expect(killedAt.length).toBeGreaterThan(0);
    expect(report.transactions.accepted).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
  });
});
