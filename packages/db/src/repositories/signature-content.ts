import { createHash } from "node:crypto";

/**
 * What a personal-sign record asks to have signed: the wallet and the exact message bytes. A
 * project's signatureId names a record only until the record is removed (a request that timed
 * out), after which another request of the project may store different content under the same id;
 * every step after the insert therefore checks the content it acts on, not the key alone. Two records with the same
 * content have the same signature (RFC 6979 signatures are deterministic), so acting on either is
 * right.
 */
export interface SignatureContent {
  walletId: string;
  message: Uint8Array;
}

/**
 * What a record's message is: an EIP-191 personal message (its UTF-8 bytes) or EIP-712 typed data
 * (TYPED_DATA_MARK, then the request's JSON text: domain, types, primaryType, message). 0xFF never
 * occurs in UTF-8, so no personal message starts with it: the bytes say which kind they are, and
 * equal content is of equal kind. No column tells it, so every statement works on the table of any
 * release (docs/operations.md, "Deploying").
 */
export type SignatureKind = "PERSONAL" | "TYPED_DATA";
export const TYPED_DATA_MARK = 0xff;

export const kindOf = (message: Uint8Array): SignatureKind => (message[0] === TYPED_DATA_MARK ? "TYPED_DATA" : "PERSONAL");

/** A typed-data record's message: the mark, then the typed data's JSON text. */
export function typedDataMessage(json: string): Uint8Array {
  const text = new TextEncoder().encode(json);
  const message = new Uint8Array(text.length + 1);
  message[0] = TYPED_DATA_MARK;
  message.set(text, 1);
  return message;
}

/** The JSON text of a typed-data record's message. */
export const typedDataText = (message: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(message.subarray(1));

export const sameContent = (a: SignatureContent, b: SignatureContent): boolean =>
  a.walletId === b.walletId && Buffer.compare(a.message, b.message) === 0;

/** The message's SHA-256, hex: how a signing worker's answer names what it signed without carrying the message. */
export const messageDigest = (message: Uint8Array): string => createHash("sha256").update(message).digest("hex");
