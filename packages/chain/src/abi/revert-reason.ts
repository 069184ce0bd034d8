import { ErrorFragment, FunctionFragment, Interface, type ErrorDescription } from "ethers";
import { toError } from "@relay/core";
import { badRequest, shortText } from "./describe-value";

/** Bounds on a request's `errorSignatures`: a handful per contract is the normal case. */
export const ERROR_SIGNATURE_LIMITS = Object.freeze({ count: 50, length: 1024 });

/**
 * What Solidity's `Panic(uint256)` codes mean (the Solidity documentation's list, "Panic via
 * assert and Error via require"). A code not listed is shown as its number only.
 */
export const PANIC_MEANINGS: Readonly<Record<number, string>> = Object.freeze({
  0x00: "generic compiler-inserted panic",
  0x01: "assert(false): an assertion failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division or modulo by zero",
  0x21: "conversion to an enum out of its range",
  0x22: "access to an incorrectly encoded storage byte array",
  0x31: "pop() on an empty array",
  0x32: "array index out of bounds",
  0x41: "too much memory allocated, or an array too large",
  0x51: "call to a zero-initialized internal function variable",
});

/**
 * A request's `errorSignatures` (human-readable, `error` keyword optional), each checked with
 * ethers: the first that is not an error signature is a 400 naming it by index. Returned in
 * ethers' full form ("error Name(type name, …)"), the form they are stored and decoded in.
 */
export function parseErrorSignatures(signatures: readonly string[]): string[] {
  if (signatures.length > ERROR_SIGNATURE_LIMITS.count) throw badRequest(`errorSignatures has more than ${ERROR_SIGNATURE_LIMITS.count} entries`);
  return signatures.map((signature, i) => {
    if (typeof signature !== "string") throw badRequest(`errorSignatures[${i}] must be a string`);
    if (signature.length > ERROR_SIGNATURE_LIMITS.length) throw badRequest(`errorSignatures[${i}] is longer than ${ERROR_SIGNATURE_LIMITS.length} characters`);
    const text = /^\s*error\b/.test(signature) ? signature : `error ${signature}`;
    try {
      return ErrorFragment.from(text).format("full");
    } catch (e) {
      const why = (e as { shortMessage?: string }).shortMessage ?? toError(e).message;
      throw badRequest(`errorSignatures[${i}] is not a valid error signature (${shortText(signature)}): ${shortText(why)}`);
    }
  });
}

/** What a revert is known by: the function called, and the error signatures the request gave. */
export interface RevertContext {
  /** The transaction's function signature, as stored (ethers' full form). */
  functionSignature: string;
  errorSignatures?: readonly string[] | null | undefined;
}

/** "transfer(address,uint256) (selector 0xa9059cbb)", or the text as stored if ethers cannot read it. */
function functionNamed(functionSignature: string): string {
  try {
    const fragment = FunctionFragment.from(functionSignature);
    return `${fragment.format("sighash")} (selector ${fragment.selector})`;
  } catch {
    return functionSignature;
  }
}

const describeArgs = (error: ErrorDescription): string =>
  error.fragment.inputs.map((input, i) => `${input.name ? `${input.name}: ` : ""}${String(error.args[i])}`).join(", ");

/** Revert data longer than this is cut in a reason (it is kept whole in `revert_data`). */
const SHOWN_DATA = 202;

/**
 * A revert as a person reads it, from its raw data (0x-hex; "0x" or null: none): `Error(string)`
 * → its message; `Panic(uint256)` → the code and its meaning; a custom error named in
 * `errorSignatures` → its name and arguments; another → its 4-byte selector. No data at all is
 * what a call to a function the contract lacks (and no fallback) answers, as does a bare
 * `revert()` or `require(cond)`: both are said. Decoded by ethers' Interface only.
 */
export function describeRevert(data: string | null, context: RevertContext): string {
  if (!data || data === "0x") {
    return `the contract has no function ${functionNamed(context.functionSignature)} or reverted without a reason`;
  }
  let decoded: ErrorDescription | null = null;
  try {
    decoded = new Interface([...(context.errorSignatures ?? [])]).parseError(data);
  } catch {
    decoded = null; // data that does not decode as the error its selector names
  }
  if (decoded?.name === "Error" && decoded.signature === "Error(string)") return String(decoded.args[0]) || "reverted with an empty message";
  if (decoded?.name === "Panic" && decoded.signature === "Panic(uint256)") {
    const code = BigInt(decoded.args[0] as bigint);
    const meaning = code <= 0xffn ? PANIC_MEANINGS[Number(code)] : undefined;
    return `panic 0x${code.toString(16).padStart(2, "0")}${meaning ? `: ${meaning}` : ""}`;
  }
  if (decoded) return `${decoded.name}(${describeArgs(decoded)})`;
  const shown = data.length > SHOWN_DATA ? `${data.slice(0, SHOWN_DATA)}…` : data;
  return `custom error ${data.slice(0, 10)} (give its signature in errorSignatures to decode it), data ${shown}`;
}

