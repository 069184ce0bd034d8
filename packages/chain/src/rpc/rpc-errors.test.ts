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
    expect(classifyRpcError(reason)).toEqual({ kind: "reverted", reason: "not allowed", data: `0x08c379a0${AbiCoder.defaultAbiCoder().encode(["string"], ["not allowed"]).slice(2)}` });
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: 3, message: "execution reverted" }))).toMatchObject({ kind: "reverted", data: "0x" });
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: 3, message: "execution reverted" })).kind).toBe("reverted");
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: -32000, message: "execution reverted" })).kind).toBe("reverted");
  });

  it("calls a revert reverted whatever its reason says: a contract's words are not the node's", () => {
    for (const reason of ["Insufficient funds", "ERC20: insufficient funds", "Permit: nonce too low", "order already known", "bid underpriced", "invalid chain id", "fee too low"]) {
      const data = `0x08c379a0${AbiCoder.defaultAbiCoder().encode(["string"], [reason]).slice(2)}`;
      expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: 3, message: `execution reverted: ${reason}`, data }))).toEqual({ kind: "reverted", reason, data });
      // Without revert data, as some providers answer: the node's own wording says it reverted.
      expect(classifyRpcError(rpcErrorOf("eth_estimateGas", { code: -32000, message: `execution reverted: ${reason}` })).kind).toBe("reverted");
    }
    // The node's own refusal of an unfunded sender is still that, not a revert.
    const unfunded = { code: -32000, message: "insufficient funds for gas * price + value: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 have 0 want 1" };
    expect(classifyRpcError(rpcErrorOf("eth_estimateGas", unfunded)).kind).toBe("insufficient-funds");
  });

  it("reads Nethermind's enum-name wording of a broadcast's refusals", () => {
    const kindOf = (message: string) => classifyRpcError(rpcErrorOf("eth_sendRawTransaction", { code: -32010, message })).kind;
    expect(kindOf("InsufficientFunds, Account balance: 1, cumulative cost: 2")).toBe("insufficient-funds");
    expect(kindOf("AlreadyKnown")).toBe("already-known");
    expect(kindOf("FeeTooLow")).toBe("underpriced");
    expect(kindOf("FeeTooLowToCompete")).toBe("underpriced");
    expect(kindOf("NonceTooLow")).toBe("nonce-too-low");
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

  it("calls a refusal on fees underpriced, whatever the node's wording: new bytes with higher fees are the answer", () => {
    for (const error of [
      { code: -32000, message: "replacement transaction underpriced" },
      { code: -32000, message: "transaction underpriced" },
      { code: -32003, message: "max fee per gas less than block base fee" }, // anvil (seen)
      { code: -32000, message: "max fee per gas less than block base fee: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxFeePerGas: 1, baseFee: 7" }, // geth
      { code: -32000, message: "fee cap less than block base fee: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, gasFeeCap: 1 baseFee: 7" }, // erigon
    ]) {
      expect({ error, kind: classifyRpcError(rpcErrorOf("eth_sendRawTransaction", error)).kind }).toEqual({ error, kind: "underpriced" });
    }
  });

  it("calls a refusal that no retry or fee changes rejected, and anything it does not know transient", () => {
    for (const error of [
      { code: -32000, message: "intrinsic gas too high -- tx.gas_limit > env.block.gas_limit" }, // anvil (seen)
      { code: -32000, message: "exceeds block gas limit" },
      // EIP-7825's 2^24 cap per transaction: geth, and anvil's two wordings (its binary's strings)
      { code: -32000, message: "transaction gas limit too high (cap: 16777216, tx: 20000000)" },
      { code: -32000, message: "intrinsic gas too high -- tx.gas_limit > env.cfg.tx_gas_limit_cap" },
      { code: -32000, message: "gas limit (20000000) is greater than the cap (16777216)" },
      { code: -32000, message: "intrinsic gas too low" },
      { code: -32000, message: "tx fee (1.50 ether) exceeds the configured cap (1.00 ether)" },
      { code: -32000, message: "oversized data" },
      { code: -32000, message: "invalid chain id for signer" },
    ]) {
      expect({ error, kind: classifyRpcError(rpcErrorOf("eth_sendRawTransaction", error)).kind }).toEqual({ error, kind: "rejected" });
    }
    expect(classifyRpcError(rpcErrorOf("eth_sendRawTransaction", { code: -32000, message: "something new went wrong" })).kind).toBe("transient");
  });
});
