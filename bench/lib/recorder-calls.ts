/**
 * The Recorder contract calls the transaction benchmarks send: `setOrder` writes fresh storage per
 * call (its order id), `spend` burns a fixed amount of gas. The i-th call for the HTTP API (args
 * by name) and for ethers (positional).
 */
export const RECORDER_CALLS = {
  setOrder: "function setOrder((uint256 id, address owner, uint8[] flags) order)",
  spend: "function spend(uint256 n)",
} as const;
export type RecorderCall = keyof typeof RECORDER_CALLS;

const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

export const recorderApiArgs = (call: RecorderCall, i: number) =>
  call === "setOrder" ? { order: { id: String(i + 1), owner: OWNER, flags: [1, 2, 3] } } : { n: "1" };

export const recorderEthersArgs = (call: RecorderCall, i: number) => (call === "setOrder" ? [[BigInt(i + 1), OWNER, [1, 2, 3]]] : [1n]);

/** The body of the i-th `POST /transact/sendTransaction`, each with its own requestId. */
export const sendTransactionBody = (target: { projectId: string; chainId: number; contractAddress: string }, call: RecorderCall, i: number, requestId: string) =>
  JSON.stringify({ ...target, functionSignature: RECORDER_CALLS[call], args: recorderApiArgs(call, i), requestId });
