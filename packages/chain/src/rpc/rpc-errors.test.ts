import { AbiCoder, JsonRpcProvider, Network } from "ethers";
import { classifyRpcError } from "./rpc-errors";

/** The error ethers makes of a node's JSON-RPC error answer to `method` (its own mapping, no network). */
function rpcErrorOf(method: string, error: { code: number; message: string; data?: string }): Error {
  const provider = new JsonRpcProvider("http://127.0.0.1:1", Network.from(1), { staticNetwork: true });
  try {
    const params = method === "eth_estimateGas" ? [{ to: "0x0000000000000000000000000000000000000001", data: "0x" }] : ["0x00"];
    return provider.getRpcError({ method, params, id: 1, jsonrpc: "2.0" }, { id: 1, error });
  } finally {
    provider.destroy();
  }
}

describe("classifyRpcError", () => {
  it("calls a simulation that reverted with a reason or without one reverted", () => {
    const reason = rpcErrorOf("eth_estimateGas", {
      code: 3,
      message: "execution reverted: not allowed",
      data: `0x08c379a0${AbiCoder.defaultAbiCoder().encode(["string"], ["not allowed"]).slice(2)}`,
    });
    expect(classifyRpcError(reason)).toEqual({ kind: "reverted", reason: "not allowed" });
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: 3, message: "execution reverted" })).kind).toBe("reverted");
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: -32000, message: "execution reverted" })).kind).toBe("reverted");
  });

  it("calls a provider's internal error, rate limit or missing header during a simulation transient, not a revert", () => {
    for (const error of [
      { code: -32603, message: "internal error" },
      { code: -32005, message: "limit exceeded" },
      { code: -32000, message: "header not found" },
      { code: 429, message: "Too Many Requests" },
    ]) {
      expect({ error, kind: classifyRpcError(rpcErrorOf("eth_estimateGas", error)).kind }).toEqual({ error, kind: "transient" });
    }
  });

  it("keeps the refusals of a broadcast apart", () => {
    expect(classifyRpcError(rpcErrorOf("eth_sendRawTransaction", { code: -32000, message: "nonce too low" })).kind).toBe("nonce-too-low");
    expect(classifyRpcError(rpcErrorOf("eth_sendRawTransaction", { code: -32000, message: "already known" })).kind).toBe("already-known");
    expect(classifyRpcError(rpcErrorOf("eth_sendRawTransaction", { code: -32603, message: "internal error" })).kind).toBe("transient");
  });
});
