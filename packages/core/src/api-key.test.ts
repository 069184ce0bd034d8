import { generateApiKey, parseApiKey, secretMatches } from "./api-key";

describe("API keys", () => {
  it("round-trips id and secret, and stores only a hash that matches the secret", () => {
    const key = generateApiKey();
    const parsed = parseApiKey(key.token);
    expect(parsed?.id).toBe(key.id);
    expect(secretMatches(parsed!.secret, key.secretHash)).toBe(true);
    expect(key.secretHash.toString("hex")).not.toContain(parsed!.secret);
  });

  it("rejects other secrets and malformed tokens", () => {
    const key = generateApiKey();
    const other = parseApiKey(generateApiKey().token)!;
    expect(secretMatches(other.secret, key.secretHash)).toBe(false);
    expect(secretMatches(parseApiKey(key.token)!.secret, Buffer.alloc(3))).toBe(false);
    for (const bad of ["", "rk_", key.token + "x", key.token.replace("rk_", "sk_"), `rk_${"g".repeat(32)}_${"A".repeat(43)}`]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });
});
