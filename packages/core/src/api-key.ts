import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/**
 * API keys look like `rk_<key id, 32 hex>_<secret, 43 base64url chars>`. The id finds the record;
 * only the SHA-256 of the secret is stored, and it is compared in constant time.
 */
const PATTERN = /^rk_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKey {
  /** The record id (a UUID). */
  id: string;
  /** Shown to the operator once; never stored. */
  token: string;
  secretHash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const id = randomUUID();
  const secret = randomBytes(32).toString("base64url");
  return { id, token: `rk_${id.replaceAll("-", "")}_${secret}`, secretHash: hashSecret(secret) };
}

/** The key id and secret of a well-formed token, or null. */
export function parseApiKey(token: string): { id: string; secret: string } | null {
  const match = PATTERN.exec(token);
  if (!match) return null;
  const hex = match[1] as string;
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { id, secret: match[2] as string };
}

export const hashSecret = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest();

export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const actual = hashSecret(secret);
  return storedHash.length === actual.length && timingSafeEqual(actual, storedHash);
}
