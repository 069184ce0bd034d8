import { badRequest } from "./describe-value";
import { ABI_LIMITS } from "./limits";

/**
 * Checks and small rewrites of the signature text before ethers parses it. ethers' lexer reports
 * bad characters and unbalanced parentheses without a usable position once we have prefixed
 * `function`, recurses once per nested tuple, and does not know `nonpayable` (a word Solidity's
 * own ABI uses), so those are handled here.
 */
const ALLOWED = /^[A-Za-z0-9_$()[\],@ \t\r\n]$/;
const MUTABILITY = new Set(["pure", "view", "constant", "payable", "nonpayable"]);
/** An array suffix as ethers reads it: `[]` or `[n]`, spaces allowed inside. */
const ARRAY_SUFFIX = /\[[ \t\r\n]*[0-9]*[ \t\r\n]*\]/y;
/** `indexed` as a word of its own: `$` is part of an identifier, so `$indexed` is a name. */
const INDEXED = /(?<![A-Za-z0-9_$])indexed(?![A-Za-z0-9_$])/;

export function checkSignatureText(text: string): void {
  let depth = 0;
  let maxDepth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (!ALLOWED.test(char)) {
      throw badRequest(`functionSignature has an unexpected character ${JSON.stringify(char)} at position ${i}`);
    }
    if (char === "(") maxDepth = Math.max(maxDepth, ++depth);
    if (char === ")" && --depth < 0) throw badRequest(`functionSignature has a ")" without "(" at position ${i}`);
    // ethers' lexer reads an unbalanced bracket as some other array type (`uint8[[2]]` as
    // `uint8[][2]`, `uint8[` as `uint8[]`): a call to another selector than the client meant.
    if (char === "[") {
      ARRAY_SUFFIX.lastIndex = i;
      if (!ARRAY_SUFFIX.test(text)) throw badRequest(`functionSignature has a "[" at position ${i} that does not end an array size ("[]" or "[n]")`);
      i = ARRAY_SUFFIX.lastIndex - 1;
    } else if (char === "]") {
      throw badRequest(`functionSignature has a "]" without "[" at position ${i}`);
    }
  }
  if (depth > 0) throw badRequest(`functionSignature has a "(" that is never closed`);
  if (maxDepth === 0) throw badRequest("functionSignature has no parameter list; expected name(type name, …)");
  // ethers refuses it too, but with an empty message.
  if (INDEXED.test(text)) throw badRequest('functionSignature uses "indexed", which only events have');
  // One level is the parameter list itself.
  if (maxDepth > ABI_LIMITS.depth + 1) {
    throw badRequest(`functionSignature nests tuples deeper than ${ABI_LIMITS.depth} levels`);
  }
}

/**
 * Drops `nonpayable` where it is a modifier (after the parameter list, outside parentheses), so
 * a parameter that happens to be called `nonpayable` keeps its name; refuses two mutabilities,
 * which ethers would silently resolve to one of them.
 */
export function prepareModifiers(text: string): string {
  const modifiers: { word: string; index: number }[] = [];
  let depth = 0;
  let afterParams = false;
  for (const match of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]*|[()]/g)) {
    const token = match[0];
    if (token === "(") depth++;
    else if (token === ")") afterParams ||= --depth === 0;
    else if (depth === 0 && afterParams && MUTABILITY.has(token)) {
      modifiers.push({ word: token, index: match.index });
    }
  }
  const distinct = new Set(modifiers.map((m) => (m.word === "constant" ? "view" : m.word)));
  if (distinct.size > 1) {
    throw badRequest(`functionSignature has conflicting state mutability: ${[...distinct].join(", ")}`);
  }
  let prepared = text;
  // From the end, so the earlier indexes stay valid; trimmed, because ethers' lexer fails on
  // trailing whitespace.
  for (const { word, index } of modifiers.reverse()) {
    if (word === "nonpayable") prepared = prepared.slice(0, index) + prepared.slice(index + word.length);
  }
  return prepared.trimEnd();
}
