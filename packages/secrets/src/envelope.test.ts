import { randomBytes } from "node:crypto";
import { open, seal, needsReseal, type Kek } from "./envelope";

const kek = (id = "k1", key = randomBytes(32)): Kek => ({ activeKeyId: id, keys: new Map([[id, key]]) });

describe("envelope encryption", () => {
  const secret = Buffer.from("super secret key material");

  it("opens what it sealed, with a fresh IV each time", () => {
    const k = kek();
    const a = seal(k, secret, "wallet:1");
    const b = seal(k, secret, "wallet:1");
    expect(a).not.toBe(b);
    expect(open(k, a, "wallet:1").equals(secret)).toBe(true);
    expect(a).not.toContain(secret.toString("base64url"));
  });

  it("refuses a tampered ciphertext, tag or IV", () => {
    const k = kek();
    const sealed = seal(k, secret, "wallet:1");
    const parts = sealed.split(".");
    for (const index of [2, 3, 4]) {
      const bytes = Buffer.from(parts[index]!, "base64url");
      bytes[0] = bytes[0]! ^ 1;
      const tampered = [...parts];
      tampered[index] = bytes.toString("base64url");
      expect(() => open(k, tampered.join("."), "wallet:1")).toThrow(/failed authentication/);
    }
  });

  it("refuses a ciphertext moved to another record (associated data differs)", () => {
    const k = kek();
    expect(() => open(k, seal(k, secret, "wallet:1"), "wallet:2")).toThrow(/failed authentication/);
  });

  it("refuses the wrong key and names a missing key id", () => {
    const sealed = seal(kek("k1"), secret, "r");
    expect(() => open(kek("k1"), sealed, "r")).toThrow(/failed authentication/);
    expect(() => open(kek("k2"), sealed, "r")).toThrow(/needs key-encryption key "k1"/);
  });

  it("opens records of a previous key after rotation and marks them for re-sealing", () => {
    const oldKey = randomBytes(32);
    const sealed = seal(kek("k1", oldKey), secret, "r");
    const rotated: Kek = { activeKeyId: "k2", keys: new Map([["k1", oldKey], ["k2", randomBytes(32)]]) };
    expect(open(rotated, sealed, "r").equals(secret)).toBe(true);
    expect(needsReseal(rotated, sealed)).toBe(true);
    expect(needsReseal(rotated, seal(rotated, secret, "r"))).toBe(false);
  });

  it("refuses malformed input without echoing it", () => {
    expect(() => open(kek(), "garbage", "r")).toThrow(/unknown format/);
    expect(() => open(kek(), "v1.k1.AA.AA.AA", "r")).toThrow(/malformed/);
  });
});
