import { allowlistMatcher, parseCidrs, parseScopes } from "./scopes";

describe("scopes and allowlists", () => {
  it("parses scope lists in any case and order, and names an unknown scope", () => {
    expect(parseScopes(" Sign,send ,read")).toEqual(["send", "sign", "read"]);
    expect(() => parseScopes("send,admin")).toThrow('"admin" is not a scope; scopes are send, sign, read, webhooks, wallets');
    expect(() => parseScopes(" , ")).toThrow("list at least one scope");
  });

  it("parses CIDR lists, a bare address as a single host, and refuses what is not a range", () => {
    expect(parseCidrs("10.0.0.0/8, 2001:db8::/32,192.168.1.1")).toEqual(["10.0.0.0/8", "2001:db8::/32", "192.168.1.1/32"]);
    for (const bad of ["10.0.0.0/33", "2001:db8::/129", "10.0.0/8", "host.example/8", "10.0.0.0/8/1", "10.0.0.0/x"]) {
      expect(() => parseCidrs(bad)).toThrow("is not a CIDR range such as 10.0.0.0/8 or 2001:db8::/32");
    }
  });

  it("matches IPv4, IPv6 and IPv4-mapped IPv6 addresses", () => {
    const allowed = allowlistMatcher(["10.0.0.0/8", "2001:db8::/32", "127.0.0.1"]);
    expect(allowed("10.255.0.1")).toBe(true);
    expect(allowed("::ffff:10.1.2.3")).toBe(true);
    expect(allowed("::FFFF:127.0.0.1")).toBe(true);
    expect(allowed("127.0.0.2")).toBe(false);
    expect(allowed("2001:db8:ffff::1")).toBe(true);
    expect(allowed("2001:db9::1")).toBe(false);
    expect(allowed("::1")).toBe(false);
    expect(allowed(undefined)).toBe(false);
    expect(allowed("not an ip")).toBe(false);
    expect(allowlistMatcher(["::1/128"])("::1")).toBe(true);
  });
});
