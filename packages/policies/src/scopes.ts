import { BlockList, isIP } from "node:net";
import { AppError } from "@relay/core";

/** What an API key may do (docs/policies.md, "API key scopes"); keys have all of them unless restricted. */
export const SCOPES = ["send", "sign", "read", "webhooks", "wallets"] as const;

export type Scope = (typeof SCOPES)[number];

const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** "send,sign" → ["send", "sign"]; a 400 naming an unknown scope and the known ones. */
export function parseScopes(text: string): Scope[] {
  const names = text.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
  if (names.length === 0) throw new AppError("BAD_REQUEST", `list at least one scope of ${SCOPES.join(", ")}`);
  const unknown = names.find((s) => !isScope(s));
  if (unknown !== undefined) throw new AppError("BAD_REQUEST", `"${unknown.slice(0, 40)}" is not a scope; scopes are ${SCOPES.join(", ")}`);
  return SCOPES.filter((s) => names.includes(s));
}

/** One CIDR range, IPv4 or IPv6 ("10.0.0.0/8", "2001:db8::/32"; a bare address is a /32 or /128). */
export function parseCidr(text: string): { network: string; prefix: number; family: "ipv4" | "ipv6"; text: string } {
  const [network = "", prefixText, extra] = text.trim().split("/");
  const version = isIP(network);
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (version === 0 || extra !== undefined || !(prefix >= 0 && prefix <= bits)) {
    throw new AppError("BAD_REQUEST", `"${text.slice(0, 60)}" is not a CIDR range such as 10.0.0.0/8 or 2001:db8::/32`);
  }
  return { network, prefix, family: version === 4 ? "ipv4" : "ipv6", text: `${network}/${prefix}` };
}

/** "10.0.0.0/8, 2001:db8::/32" → the ranges as written back (`network/prefix`). */
export const parseCidrs = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => parseCidr(s).text);

/**
 * Whether `ip` (as Express gives req.ip: IPv4, IPv6, or IPv4-mapped IPv6 such as ::ffff:127.0.0.1)
 * is in one of `cidrs`. An IPv4-mapped address is checked as the IPv4 address it carries, so an
 * allowlist of 127.0.0.0/8 lets in a client a dual-stack socket reports as ::ffff:127.0.0.1.
 */
export function allowlistMatcher(cidrs: readonly string[]): (ip: string | undefined) => boolean {
  const list = new BlockList();
  for (const c of cidrs) {
    const { network, prefix, family } = parseCidr(c);
    list.addSubnet(network, prefix, family);
  }
  return (ip) => {
    if (!ip) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    const address = mapped ? mapped[1]! : ip;
    const version = isIP(address);
    if (version === 0) return false;
    return list.check(address, version === 4 ? "ipv4" : "ipv6");
  };
}
