import { Interface, isError, type FunctionFragment } from "ethers";
import { toError } from "@relay/core";
import { badRequest, describeValue, isPlainObject } from "./describe-value";
import { convertValue, type ConvertBudget, type NormalizedValue } from "./convert-value";
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
  iface: Interface;
}
const prepared = new WeakMap<FunctionFragment, Prepared>();
const prepare = (fragment: FunctionFragment): Prepared => {
  let p = prepared.get(fragment);
  if (!p) {
    p = { signature: fragment.format("sighash"), selector: fragment.selector, iface: new Interface([fragment]) };
    prepared.set(fragment, p);
  }
  return p;
};

export function encodeCall(fragment: FunctionFragment, args: unknown): EncodedCall {
  const { signature, selector, iface } = prepare(fragment);
  const given = args === undefined ? {} : args;
  if (!isPlainObject(given)) {
    throw badRequest(`args must be an object keyed by parameter name or index; got ${describeValue(args)}`);
  }
  const budget: ConvertBudget = { values: 0 };
  const fields = fieldValues(given, fragment.inputs, "args", { noun: "parameter", label: signature });
  const normalizedArgs = fields.map((field) => convertValue(field.type, field.value, field.path, 0, budget));
  try {
    const calldata = iface.encodeFunctionData(fragment, normalizedArgs);
    return { calldata, selector, normalizedArgs };
  } catch (e) {
    // Not expected once every value has been converted; if ethers still refuses, the request
    // caused it, and the client should hear ethers' reason rather than a 500.
    const reason = isError(e, "INVALID_ARGUMENT") ? e.shortMessage : toError(e).message;
    throw badRequest(`args could not be encoded for ${signature}: ${reason}`, e);
  }
}
