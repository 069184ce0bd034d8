import { computeAddress } from "ethers";
import { AppError } from "@relay/core";

/**
 * The little DER the backends answer with: KMS's ECDSA-Sig-Value and SubjectPublicKeyInfo, and a
 * PKCS#11 token's CKA_EC_POINT (an OCTET STRING around the point). Strict: definite lengths only,
 * nothing left over, so a malformed answer is an error rather than a wrong key or signature.
 */

interface Element {
  tag: number;
  body: Uint8Array;
  /** Where the next element starts in the input. */
  end: number;
}

const malformed = (what: string) => new AppError("CRYPTO", `Malformed DER from the key's backend: ${what}`);

function readElement(bytes: Uint8Array, at: number): Element {
  const tag = bytes[at];
  let lengthByte = bytes[at + 1];
  if (tag === undefined || lengthByte === undefined) throw malformed("truncated header");
  let offset = at + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw malformed("unsupported length");
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = bytes[offset++];
      if (lengthByte === undefined) throw malformed("truncated length");
      length = length * 256 + lengthByte;
    }
  }
  const end = offset + length;
  if (end > bytes.length) throw malformed("truncated value");
  return { tag, body: bytes.subarray(offset, end), end };
}

/** The elements of a constructed value's body, each checked to have `tags[i]`. */
function readSequence(body: Uint8Array, tags: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const tag of tags) {
    const element = readElement(body, at);
    if (element.tag !== tag) throw malformed(`expected tag 0x${tag.toString(16)}, got 0x${element.tag.toString(16)}`);
    out.push(element.body);
    at = element.end;
  }
  if (at !== body.length) throw malformed("trailing bytes");
  return out;
}

function readWhole(bytes: Uint8Array, tag: number): Uint8Array {
  const element = readElement(bytes, 0);
  if (element.tag !== tag) throw malformed(`expected tag 0x${tag.toString(16)}, got 0x${element.tag.toString(16)}`);
  if (element.end !== bytes.length) throw malformed("trailing bytes");
  return element.body;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;

const positiveInteger = (body: Uint8Array): bigint => {
  if (body.length === 0 || (body[0]! & 0x80) !== 0) throw malformed("an INTEGER that is not positive");
  return BigInt(`0x${Buffer.from(body).toString("hex")}`);
};

/** ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 3279), as KMS's Sign answers. */
export function decodeEcdsaSignature(der: Uint8Array): { r: bigint; s: bigint } {
  const [r, s] = readSequence(readWhole(der, SEQUENCE), [INTEGER, INTEGER]);
  return { r: positiveInteger(r!), s: positiveInteger(s!) };
}

const uncompressed = (point: Uint8Array): Uint8Array => {
  if (point.length !== 65 || point[0] !== 0x04) throw malformed("not an uncompressed secp256k1 point");
  return point;
};

/** SubjectPublicKeyInfo ::= SEQUENCE { algorithm SEQUENCE, subjectPublicKey BIT STRING }: the 65-byte point. */
export function decodeSpkiPoint(der: Uint8Array): Uint8Array {
  const [, bits] = readSequence(readWhole(der, SEQUENCE), [SEQUENCE, BIT_STRING]);
  if (bits![0] !== 0) throw malformed("a BIT STRING with unused bits");
  return uncompressed(bits!.subarray(1));
}

/** CKA_EC_POINT: the DER OCTET STRING around the point (PKCS#11 v2.40); a bare point is taken as well. */
export function decodeEcPoint(value: Uint8Array): Uint8Array {
  if (value.length === 65 && value[0] === 0x04) return value;
  return uncompressed(readWhole(value, OCTET_STRING));
}

/** The Ethereum address of an uncompressed secp256k1 point (04‖x‖y). */
export const addressOfPoint = (point: Uint8Array): string => computeAddress(`0x${Buffer.from(uncompressed(point)).toString("hex")}`);
