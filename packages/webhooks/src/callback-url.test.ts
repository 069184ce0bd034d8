import { checkCallbackUrl } from "./callback-url";

const production = { production: true };
const development = { production: false };

describe("checkCallbackUrl", () => {
  it.each([
    "https://hooks.example.com/relay",
    "https://hooks.example.com:8443/relay?project=1#ignored",
    "https://8.8.8.8/hook",
    "https://[2606:4700:4700::1111]/hook",
    "https://bücher.example/hook",
    `https://example.com/${"a".repeat(2048 - "https://example.com/".length)}`,
  ])("accepts %s in production", (url) => {
    expect(checkCallbackUrl(url, production)).toBeNull();
  });

  it.each([
    ["http://hooks.example.com/", "must use https"],
    ["https://127.0.0.1/", "127.0.0.1 (loopback)"],
    ["https://[::1]/", "::1 (loopback)"],
    ["https://[::ffff:127.0.0.1]/", "(loopback)"],
    ["https://10.1.2.3/", "10.1.2.3 (private)"],
    ["https://192.168.0.10/", "(private)"],
    ["https://169.254.169.254/", "(linkLocal)"],
    ["https://100.64.0.1/", "(carrierGradeNat)"],
    ["https://0.0.0.0/", "(unspecified)"],
    ["https://2130706433/", "127.0.0.1 (loopback)"],
    ["https://[fd00::1]/", "(uniqueLocal)"],
    ["https://localhost/", "must not point to localhost"],
    ["https://api.localhost./", "must not point to localhost"],
  ])("refuses %s in production: %s", (url, problem) => {
    expect(checkCallbackUrl(url, production)).toContain(problem);
  });

  it("allows http and private hosts outside production", () => {
    for (const url of ["http://127.0.0.1:8080/hook", "http://localhost/hook", "http://[::1]:3000/", "http://10.0.0.5/"]) {
      expect(checkCallbackUrl(url, development)).toBeNull();
    }
  });

  it.each([
    ["not-a-url", "is not a valid absolute URL"],
    ["/relative/path", "is not a valid absolute URL"],
    ["ftp://example.com/", "must use http or https, not ftp"],
    ["javascript:alert(1)", "must use http or https, not javascript"],
    ["https://user:secret@example.com/", "must not contain a user name or password"],
    ["https://token@example.com/", "must not contain a user name or password"],
    [" https://example.com/", "spaces or control characters"],
    ["https://exam\nple.com/", "spaces or control characters"],
    ["https://example.com/a b", "spaces or control characters"],
    [`https://example.com/${"a".repeat(2049 - "https://example.com/".length)}`, "2049 characters long; at most 2048"],
  ])("refuses %j everywhere: %s", (url, problem) => {
    for (const rules of [production, development]) {
      const message = checkCallbackUrl(url, rules);
      expect(message).toContain(problem);
      expect(message).toMatch(/^callbackURL /);
    }
  });
});
