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
  }
  if (depth > 0) throw badRequest(`functionSignature has a "(" that is never closed`);
  if (maxDepth === 0) throw badRequest("functionSignature has no parameter list; expected name(type name, …)");
  // ethers refuses it too, but with an empty message.
  if (/\bindexed\b/.test(text)) throw badRequest('functionSignature uses "indexed", which only events have');
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
