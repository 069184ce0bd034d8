import { AbiCoder, toQuantity, type JsonRpcProvider } from "ethers";
import { AppError, toError } from "@relay/core";

export interface CallToSimulate {
  from: string;
  to: string;
  /** Calldata, 0x-hex. */
  data: string;
  value: bigint;
  /** The gas limit the call runs with; without one, as much as the simulated block leaves. */
  gas?: bigint | undefined;
}

export type SimulatedCall =
  | { ok: true; gasUsed: bigint; peakGas: bigint }
  /** `data`: the revert data, 0x-hex ("0x": none); null when the node gave none. */
  | { ok: false; gasUsed: bigint; reason: string; data: string | null };

interface CallResult {
  status?: string;
  gasUsed?: string;
  maxUsedGas?: string;
  returnData?: string;
  error?: { message?: string; data?: string };
}

/**
 * JSON-RPC codes and wording of a node that has no eth_simulateV1: method not found (-32601),
 * "method not supported" (-32004), and providers' own phrasings.
 */
const UNSUPPORTED_CODES = new Set([-32601, -32004]);
const UNSUPPORTED_TEXT = /method not found|not supported|unsupported|does not exist|not available|unknown method/i;

function isUnsupported(e: unknown): boolean {
  // ethers keeps the node's JSON-RPC error as `info.error`, or as `error` when it could not map it.
  const failure = e as { info?: { error?: { code?: unknown; message?: unknown } }; error?: { code?: unknown; message?: unknown } } | null;
  const answer = failure?.info?.error ?? failure?.error;
  if (typeof answer?.code === "number" && UNSUPPORTED_CODES.has(answer.code)) return true;
  return typeof answer?.message === "string" && UNSUPPORTED_TEXT.test(answer.message);
}

/** What a failed call says: its revert reason decoded as a simulation's, or the node's words. */
function failureOf(result: CallResult): string {
  const data = result.error?.data ?? result.returnData;
  if (data && data !== "0x") {
    const decoded = AbiCoder.getBuiltinCallException("call", {}, data);
    if (decoded.reason) return decoded.reason;
    if (decoded.revert) return `${decoded.revert.name}(${decoded.revert.args.map(String).join(", ")})`;
    return `reverted with custom error data ${data.slice(0, 202)}`;
  }
  return result.error?.message ?? "execution failed";
}

/** The most blocks one eth_simulateV1 may simulate (geth's limit). */
export const MAX_SIMULATED_BLOCKS = 256;

/**
 * `calls` in blocks of at most `blockGasLimit` gas each by their limits: a node refuses a call
 * whose limit is above what its block has left. A call without one gets what is left.
 */
function intoBlocks(calls: readonly CallToSimulate[], blockGasLimit: bigint): CallToSimulate[][] {
  const blocks: CallToSimulate[][] = [];
  let room = 0n;
  for (const call of calls) {
    const gas = call.gas ?? 0n;
    if (blocks.length === 0 || gas > room) {
      blocks.push([]);
      room = blockGasLimit;
    }
    blocks[blocks.length - 1]!.push(call);
    room -= gas;
  }
  return blocks;
}

/**
 * Runs `calls` one after another on top of `block`, each seeing what the ones before it
 * left (eth_simulateV1, without fee, balance or nonce checks), in as many simulated blocks of
 * `blockGasLimit` as their gas limits take. Null when the node has no eth_simulateV1. `peakGas` is the most gas a successful call held at once (refunds
 * are paid back only at its end): the node's own figure where it gives one, otherwise the bound
 * refunds allow (EIP-3529 pays back at most a fifth of what was used, so a call used at most 5/4
 * of what it was charged).
 */
export async function simulateCalls(
  provider: JsonRpcProvider,
  calls: readonly CallToSimulate[],
  block: number | "latest",
  blockGasLimit: bigint,
): Promise<SimulatedCall[] | null> {
  const blocks = intoBlocks(calls, blockGasLimit);
  if (blocks.length > MAX_SIMULATED_BLOCKS) {
    throw new AppError("INTERNAL", `${calls.length} calls take more than the ${MAX_SIMULATED_BLOCKS} blocks one simulation may hold`, { retryable: false });
  }
  const blockStateCalls = blocks.map((inBlock) => ({
    calls: inBlock.map((c) => ({
      from: c.from,
      to: c.to,
      data: c.data,
      value: toQuantity(c.value),
      ...(c.gas === undefined ? {} : { gas: toQuantity(c.gas) }),
    })),
  }));
  let answer: { calls?: CallResult[] }[];
  try {
    answer = (await provider.send("eth_simulateV1", [{ blockStateCalls, validation: false }, block === "latest" ? block : toQuantity(block)])) as typeof answer;
  } catch (e) {
    if (isUnsupported(e)) return null;
    throw new AppError("UNAVAILABLE", `simulation in order failed: ${toError(e).message}`, { retryable: true, cause: e });
  }
  const results = answer.flatMap((simulated) => simulated.calls ?? []);
  if (results.length !== calls.length) {
    throw new AppError("UNAVAILABLE", `the node simulated ${results.length} of ${calls.length} calls`, { retryable: true });
  }
  return results.map((r) => {
    const gasUsed = BigInt(r.gasUsed ?? "0x0");
    if (r.status !== "0x1") return { ok: false, gasUsed, reason: failureOf(r), data: r.error?.data ?? r.returnData ?? null };
    const peakGas = r.maxUsedGas ? BigInt(r.maxUsedGas) : (gasUsed * 5n + 3n) / 4n;
    return { ok: true, gasUsed, peakGas };
  });
}
