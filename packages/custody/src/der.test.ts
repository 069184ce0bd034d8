import { createHash, generateKeyPairSync, sign } from "node:crypto";
import secp256k1 from "secp256k1";
import { computeAddress } from "ethers";
import { addressOfPoint, decodeEcPoint, decodeEcdsaSignature, decodeSpkiPoint } from "./der";

// Node's OpenSSL writes the DER here; the decoder is held to it, not to an encoder of our own.
const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "secp256k1" });
const jwk = publicKey.export({ format: "jwk" });
const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);

describe("DER from a key's backend", () => {
  it("reads the point of a secp256k1 SubjectPublicKeyInfo (what KMS GetPublicKey answers)", () => {
    const spki = publicKey.export({ format: "der", type: "spki" });
    expect(Buffer.from(decodeSpkiPoint(spki))).toEqual(point);
    expect(addressOfPoint(point)).toBe(computeAddress(`0x${point.toString("hex")}`));
  });

  it("reads r and s of ECDSA-Sig-Value (what KMS Sign answers), short and long integers alike", () => {
    for (let i = 0; i < 200; i++) {
      const message = Buffer.from(`message ${i}`);
      const der = sign("sha256", message, privateKey);
      const { r, s } = decodeEcdsaSignature(der);
      const rs = Buffer.from(r.toString(16).padStart(64, "0") + s.toString(16).padStart(64, "0"), "hex");
      const digest = createHash("sha256").update(message).digest();
      // libsecp256k1 verifies low s only: normalise the copy to check it.
      expect(secp256k1.ecdsaVerify(secp256k1.signatureNormalize(rs), digest, point)).toBe(true);
    }
  });

  it("reads CKA_EC_POINT as a DER OCTET STRING or a bare point", () => {
    expect(Buffer.from(decodeEcPoint(Buffer.concat([Buffer.from([0x04, 65]), point])))).toEqual(point);
    expect(Buffer.from(decodeEcPoint(point))).toEqual(point);
  });

  it("refuses truncated, padded, negative or compressed input", () => {
    const good = sign("sha256", Buffer.from("x"), privateKey);
    expect(() => decodeEcdsaSignature(good.subarray(0, good.length - 1))).toThrow(/Malformed DER/);
    expect(() => decodeEcdsaSignature(Buffer.concat([good, Buffer.from([0])]))).toThrow(/trailing bytes/);
    expect(() => decodeEcdsaSignature(Buffer.from("3006020180020101", "hex"))).toThrow(/not positive/);
    expect(() => decodeEcPoint(Buffer.concat([Buffer.from([0x04, 33, 2]), point.subarray(1, 33)]))).toThrow(/uncompressed/);
    expect(() => decodeSpkiPoint(Buffer.from("3000", "hex"))).toThrow(/Malformed DER/);
  });
});
