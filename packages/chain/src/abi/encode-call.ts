import type { FunctionFragment, ParamType } from "ethers";
import { encodeAbiParameters, type AbiParameter } from "viem";
import { toError } from "@relay/core";
import { badRequest, describeValue, isPlainObject, shortText } from "./describe-value";
import { convertValue, type ConvertBudget, type NormalizedValue } from "./convert-value";
import { ABI_LIMITS } from "./limits";
import { fieldValues } from "./named-fields";

/**
 * A request's `args` → calldata for `fragment`. Every argument is checked and converted before
 * ethers sees it, so a wrong one is a 400 that names it (`args.order.meta.owner must be an
 * address`) rather than ethers' message about a positional value.
 */
export interface EncodedCall {
  /** 0x-prefixed: the 4-byte selector followed by the ABI-encoded arguments. */
  calldata: string;
  /** 0x-prefixed 4 bytes. */
  selector: string;
  /** The arguments in parameter order, tuples as arrays, integers as decimal strings. */
  normalizedArgs: NormalizedValue[];
}

/** What encoding needs of a fragment beyond itself, computed once per fragment (the selector is a keccak). */
interface Prepared {
  signature: string;
  selector: string;
  /** The parameters as JSON ABI, the form viem encodes from. */
  params: AbiParameter[];
}
const prepared = new WeakMap<FunctionFragment, Prepared>();
const prepare = (fragment: FunctionFragment): Prepared => {
  let p = prepared.get(fragment);
  if (!p) {
    const params = fragment.inputs.map((input) => JSON.parse(input.format("json")) as AbiParameter);
    p = { signature: fragment.format("sighash"), selector: fragment.selector, params };
    prepared.set(fragment, p);
  }
  return p;
};

/** A normalized value (integers as decimal strings, tuples as arrays) as viem takes it: integers as bigints. */
function abiValue(type: ParamType, value: NormalizedValue): unknown {
  if (type.isArray()) return (value as NormalizedValue[]).map((v) => abiValue(type.arrayChildren, v));
  if (type.isTuple()) return (value as NormalizedValue[]).map((v, i) => abiValue(type.components[i]!, v));
  return type.baseType.startsWith("int") || type.baseType.startsWith("uint") ? BigInt(value as string) : value;
}

export function encodeCall(fragment: FunctionFragment, args: unknown): EncodedCall {
  const { signature, selector, params } = prepare(fragment);
  const given = args === undefined ? {} : args;
  if (!isPlainObject(given)) {
    throw badRequest(`args must be an object keyed by parameter name or index; got ${describeValue(args)}`);
  }
  const budget: ConvertBudget = { values: 0 };
  const fields = fieldValues(given, fragment.inputs, "args", { noun: "parameter", label: shortText(signature) });
  const normalizedArgs = fields.map((field) => convertValue(field.type, field.value, field.path, 0, budget));
  let calldata: string;
  try {
    const values = normalizedArgs.map((v, i) => abiValue(fragment.inputs[i]!, v));
    // viem's encoder: the same bytes as ethers' AbiCoder (a property test holds it to that) at
    // about a twentieth of its CPU (ethers took ~120 µs for a small tuple, a seventh of the
    // gateway's work per sendTransaction).
    calldata = `${selector}${encodeAbiParameters(params, values).slice(2)}`;
  } catch (e) {
    // Not expected once every value has been converted; if the encoder still refuses, the request
    // caused it, and the client should hear its reason rather than a 500.
    const error = toError(e) as Error & { shortMessage?: string };
    throw badRequest(`args could not be encoded for ${shortText(signature)}: ${shortText(error.shortMessage ?? error.message)}`, e);
  }
  // Every value takes 32 bytes or more, and dynamic ones add offsets and lengths: a small body
  // (nested arrays of zeros) can ask for calldata no node would take.
  const bytes = (calldata.length - 2) / 2;
  if (bytes > ABI_LIMITS.calldataBytes) {
    throw badRequest(
      `args encode to ${bytes} bytes of calldata; at most ${ABI_LIMITS.calldataBytes} are accepted, as nodes refuse a signed transaction over 131072 bytes (128 KiB); send the data in several smaller calls`,
    );
  }
  return { calldata, selector, normalizedArgs };
}
