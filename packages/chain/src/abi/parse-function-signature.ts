import { Fragment, FunctionFragment, isError, type ParamType } from "ethers";
import { toError } from "@relay/core";
import { badRequest, shortName, shortText } from "./describe-value";
import { ABI_LIMITS } from "./limits";
import { checkSignatureText, prepareModifiers } from "./signature-text";

/**
 * `functionSignature` of a request → an ethers FunctionFragment, from ethers' human-readable ABI
 * with the `function` keyword optional. Anything else a human-readable ABI can describe (events,
 * errors, constructors, structs) is refused, as is a signature whose types the encoder would
 * refuse anyway (too deep, a fixed array too long), so that the client hears it about the
 * signature and not about its arguments.
 */
const OTHER_FRAGMENTS = new Set(["event", "error", "constructor", "fallback", "receive", "struct", "modifier"]);
const FIRST_WORD = /^[A-Za-z_$][A-Za-z0-9_$]*/;

/**
 * Parsed signatures, by their exact text: a project sends the same few signatures over and over,
 * and parsing one costs more than encoding its call. A fragment's properties are read-only
 * (ethers defines them so), so one may serve every request. Only valid signatures are kept; bounded.
 */
const parsed = new Map<string, FunctionFragment>();
const MAX_PARSED = 1_000;

export function parseFunctionSignature(signature: string): FunctionFragment {
  // The type says string; the value comes from a request body.
  if (typeof signature !== "string") throw badRequest("functionSignature must be a string");
  const known = parsed.get(signature);
  if (known) return known;
  const fragment = parseUncached(signature);
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(signature, fragment);
  return fragment;
}

function parseUncached(signature: string): FunctionFragment {
  if (signature.length > ABI_LIMITS.signatureLength) {
    throw badRequest(`functionSignature is longer than ${ABI_LIMITS.signatureLength} characters`);
  }
  const text = signature.trim();
  if (text === "") throw badRequest("functionSignature is empty");
  const first = FIRST_WORD.exec(text)?.[0];
  if (first !== undefined && OTHER_FRAGMENTS.has(first)) {
    throw badRequest(`functionSignature must describe a function, not ${/^[aeiou]/.test(first) ? "an" : "a"} ${first}`);
  }
  // The untrimmed text, so that positions in its messages are the client's.
  checkSignatureText(signature);
  // Fragment.from, not FunctionFragment.from: the latter replaces every reason with "invalid
  // function fragment", and the reason is what tells the client which part is wrong.
  const source = prepareModifiers(first === "function" ? text : `function ${text}`);
  let fragment: Fragment;
  try {
    fragment = Fragment.from(source);
  } catch (e) {
    const reason = parseReason(e);
    throw badRequest(`functionSignature is not a valid function signature${reason ? `: ${reason}` : ""}`, e);
  }
  if (!FunctionFragment.isFragment(fragment)) throw badRequest("functionSignature must describe a function");
  checkParams(fragment.inputs, "parameter");
  return fragment;
}

function checkParams(params: readonly ParamType[], noun: string): void {
  const seen = new Set<string>();
  for (const param of params) {
    if (param.name && seen.has(param.name)) {
      throw badRequest(`functionSignature has two ${noun}s named "${shortName(param.name)}" in one list`);
    }
    seen.add(param.name);
    if (nesting(param) > ABI_LIMITS.depth) {
      const which = shortText(param.name || param.type);
      throw badRequest(`functionSignature nests arrays and tuples deeper than ${ABI_LIMITS.depth} levels (${which})`);
    }
    checkType(param);
  }
}

function checkType(type: ParamType): void {
  if (type.isArray()) {
    if (type.arrayLength > ABI_LIMITS.arrayLength) {
      throw badRequest(
        `functionSignature declares a fixed array of ${type.arrayLength} elements; ` +
          `at most ${ABI_LIMITS.arrayLength} are accepted`,
      );
    }
    checkType(type.arrayChildren);
  } else if (type.isTuple()) {
    checkParams(type.components, "component");
  }
}

const nesting = (type: ParamType): number => {
  if (type.isArray()) return 1 + nesting(type.arrayChildren);
  if (type.isTuple()) return 1 + Math.max(0, ...type.components.map(nesting));
  return 0;
};

/** ethers' own words for what it could not parse, without its argument dump. */
function parseReason(e: unknown): string {
  if (isError(e, "INVALID_ARGUMENT")) {
    const short = e.shortMessage.split(" (argument=")[0] ?? "";
    return e.argument === "type" ? `${short} "${shortText(String(e.value))}"` : shortText(short);
  }
  const message = toError(e).message;
  // What ethers' token reader says when the text stops before a rule is complete.
  if (message === "out-of-bounds") return "it ends where more was expected";
  return shortText(message);
}
