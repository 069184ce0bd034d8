import { AbiCoder, isError, type FunctionFragment, type ParamType } from "ethers";
import { AppError, type Logger } from "@relay/core";
import { classifyRpcError, createProviders, type EncodedCall } from "@relay/chain";
import type { ChainRepository } from "@relay/db";

export interface ChainReaderDeps {
  chains: Pick<ChainRepository, "findById">;
  /** How long each of the chain's RPC URLs is given to answer (the next one is tried after). */
  timeoutMs: number;
  logger: Logger;
}

/** A decoded return value as JSON: integers as decimal strings, bytes as 0x-hex, tuples as objects when every component is named. */
export type DecodedValue = string | boolean | DecodedValue[] | { [name: string]: DecodedValue };

function decoded(type: ParamType, value: unknown): DecodedValue {
  if (type.isArray()) return (value as unknown[]).map((v) => decoded(type.arrayChildren, v));
  if (type.isTuple()) {
    const values = type.components.map((c, i) => decoded(c, (value as unknown[])[i]));
    return type.components.every((c) => c.name) ? Object.fromEntries(type.components.map((c, i) => [c.name, values[i]!])) : values;
  }
  if (typeof value === "bigint") return value.toString();
  return value as string | boolean;
}

/** The outputs of a call as Syndicate's /transact/call answers them: one value for one output, else an array; raw 0x-data when the signature declares no outputs. */
export function decodeResult(fragment: FunctionFragment, data: string): DecodedValue {
  if (fragment.outputs.length === 0) return data;
  const values = AbiCoder.defaultAbiCoder().decode(fragment.outputs, data);
  const out = fragment.outputs.map((type, i) => decoded(type, values[i]));
  return out.length === 1 ? out[0]! : out;
}

/**
 * Read-only calls for the gateway (POST /transact/call): eth_call at the latest block through the
 * chain's RPC URLs, the first and then the others (packages/chain's providers), within a time-out.
 * The gateway otherwise never talks to a chain; this holds no key and sends nothing.
 */
export function createChainReader(deps: ChainReaderDeps) {
  const providers = createProviders({
    timeoutMs: deps.timeoutMs,
    // The host only: an RPC URL's path and query often carry the provider's API key.
    onWrongChain: (host, served, expected) =>
      deps.logger.error({ rpcHost: host, servedChainId: served.toString(), chainId: expected.toString() }, "an RPC URL answers for another chain; it is not used until it answers for this one"),
  });

  return {
    call: async (chainId: bigint, contractAddress: string, fragment: FunctionFragment, encoded: EncodedCall): Promise<DecodedValue> => {
      const chain = await deps.chains.findById(chainId);
      if (!chain) throw new AppError("BAD_REQUEST", `chainId ${chainId} is not configured on this relay; an operator adds it with \`npm run relay -- chains add\``);
      let data: string;
      try {
        data = await providers.get(chainId, chain.rpcUrls).call({ to: contractAddress, data: encoded.calldata });
      } catch (e) {
        const refusal = classifyRpcError(e);
        if (refusal.kind === "reverted") throw new AppError("BAD_REQUEST", `the call reverted: ${refusal.reason}`);
        // Never the node's message: it may carry the RPC URL, and with it the provider's API key.
        const code = isError(e, "TIMEOUT") ? "timed out" : isError(e, "SERVER_ERROR") || isError(e, "NETWORK_ERROR") ? "failed" : "could not be made";
        deps.logger.warn({ chainId: chainId.toString(), code: (e as { code?: unknown }).code }, "read-only call: no answer from the chain's RPC endpoints");
        throw new AppError("UNAVAILABLE", `the call to chain ${chainId} ${code}: none of its RPC endpoints answered in time; retry later`, { retryable: true });
      }
      if (data === "0x" && fragment.outputs.length > 0) {
        throw new AppError("BAD_REQUEST", `the call returned no data: is there a contract at ${contractAddress} on chain ${chainId}, with ${fragment.format("sighash")}?`);
      }
      try {
        return decodeResult(fragment, data);
      } catch {
        throw new AppError("BAD_REQUEST", `the call's answer (${(data.length - 2) / 2} bytes) does not decode as ${fragment.outputs.map((o) => o.format("sighash")).join(", ")}: check the returns of functionSignature`);
      }
    },
    close: () => providers.destroy(),
  };
}

export type ChainReader = ReturnType<typeof createChainReader>;
