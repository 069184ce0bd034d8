import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AppError } from "@relay/core";

/**
 * Envelope encryption of secrets at rest: AES-256-GCM under a 32-byte key-encryption key (KEK),
 * a random 12-byte IV per record, and the record's identity as additional authenticated data, so
 * a ciphertext copied onto another record does not decrypt. The sealed form names the KEK's id,
 * which lets old records open after a rotation:
 *
 *   v1.<kekId>.<iv base64url>.<tag base64url>.<ciphertext base64url>
 */
export interface Kek {
  activeKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

const VERSION = "v1";

export function seal(kek: Kek, plaintext: Uint8Array, associatedData: string): string {
  const key = kek.keys.get(kek.activeKeyId);
  if (!key) throw new AppError("CONFIG", `The active key-encryption key "${kek.activeKeyId}" is not loaded`);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, kek.activeKeyId, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

export function open(kek: Kek, sealed: string, associatedData: string): Buffer {
  const parts = sealed.split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) {
    throw new AppError("CRYPTO", "Encrypted value has an unknown format");
  }
  const [, keyId, ivText, tagText, ciphertextText] = parts as [string, string, string, string, string];
  const key = kek.keys.get(keyId);
  if (!key) {
    throw new AppError("CONFIG", `Encrypted value needs key-encryption key "${keyId}", which is not configured`);
  }
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  if (iv.length !== 12 || tag.length !== 16) throw new AppError("CRYPTO", "Encrypted value is malformed");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAAD(Buffer.from(associatedData, "utf8"));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(ciphertextText, "base64url")), decipher.final()]);
  } catch (e) {
    // Do not pass the cause on: it adds nothing and keeps key material out of error chains.
    void e;
    throw new AppError("CRYPTO", "Encrypted value failed authentication (tampered, or sealed for another record)");
  }
}

/** True when the value was sealed under an older KEK and should be re-sealed. */
export const needsReseal = (kek: Kek, sealed: string): boolean => sealed.split(".")[1] !== kek.activeKeyId;
