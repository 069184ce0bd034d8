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
  /** What `message` is: an EIP-191 message (when absent) or EIP-712 typed data as JSON text. */
  kind?: SignatureKind | undefined;
}

export type SignatureKind = "PERSONAL" | "TYPED_DATA";

export const kindOf = (content: SignatureContent): SignatureKind => content.kind ?? "PERSONAL";

export const sameContent = (a: SignatureContent, b: SignatureContent): boolean =>
  a.walletId === b.walletId && kindOf(a) === kindOf(b) && Buffer.compare(a.message, b.message) === 0;

/** The message's SHA-256, hex: how a signing worker's answer names what it signed without carrying the message. */
export const messageDigest = (message: Uint8Array): string => createHash("sha256").update(message).digest("hex");
