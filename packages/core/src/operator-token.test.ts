import { operatorTokenMatches, presentedToken } from "./operator-token";

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("operator token", () => {
  it("takes the token from Bearer or from the password of Basic", () => {
    expect(presentedToken("Bearer abc")).toBe("abc");
    expect(presentedToken("bearer  abc")).toBe("abc");
    expect(presentedToken(basic("admin", "p:a:ss"))).toBe("p:a:ss");
    expect(presentedToken(basic("", "x"))).toBe("x");
  });

  it("finds no token in a missing, empty or unknown header", () => {
    expect(presentedToken(undefined)).toBeUndefined();
    expect(presentedToken("")).toBeUndefined();
    expect(presentedToken("Bearer")).toBeUndefined();
    expect(presentedToken("Digest abc")).toBeUndefined();
    expect(presentedToken(`Basic ${Buffer.from("nocolon").toString("base64")}`)).toBeUndefined();
  });

  it("matches only the configured token", () => {
    expect(operatorTokenMatches("Bearer s3cret", "s3cret")).toBe(true);
    expect(operatorTokenMatches(basic("anyone", "s3cret"), "s3cret")).toBe(true);
    expect(operatorTokenMatches("Bearer s3cre", "s3cret")).toBe(false);
    expect(operatorTokenMatches("Bearer s3cret!", "s3cret")).toBe(false);
    expect(operatorTokenMatches(basic("s3cret", "wrong"), "s3cret")).toBe(false);
    expect(operatorTokenMatches(undefined, "s3cret")).toBe(false);
  });
});
