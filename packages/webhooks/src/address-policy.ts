import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Which IP addresses a webhook may be delivered to when private networks are not allowed: public
 * unicast only. ipaddr.js keeps the table of special-purpose ranges (loopback, RFC 1918, link-local
 * and the 169.254.169.254 metadata service, CGNAT, unique-local, multicast, broadcast, reserved,
 * documentation, 6to4, Teredo, ...); this module adds what a range name alone gets wrong.
 */

// NAT64 well-known prefix (RFC 6052): the last 32 bits are the IPv4 address the gateway reaches.
const NAT64_PREFIX = ipaddr.parseCIDR("64:ff9b::/96");
// Everything IANA hands out as global IPv6 unicast. Outside it, ipaddr.js still says "unicast" for
// unassigned space, including the deprecated IPv4-compatible form ::a.b.c.d.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * The host `address` reaches: ::ffff:a.b.c.d and 64:ff9b::a.b.c.d reach an IPv4 host, so they are
 * judged as that host (the mapped form of a private address is refused, of a public one is not).
 */
function reached(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() !== "ipv6") return parsed;
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(NAT64_PREFIX)) return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  return v6;
}

/**
 * null when `address` is a public unicast IP, otherwise why not (the range's name, e.g.
 * "loopback", "private", "linkLocal"). Only canonical literals count as addresses: the resolver and
 * the URL parser produce those, and ipaddr.js alone would also read forms like `0x7f.1`.
 */
export function nonPublicRange(address: string): string | null {
  if (isIP(address) === 0) return "not an IP address";
  const parsed = reached(address);
  const range = parsed.range();
  if (range !== "unicast") return range;
  if (parsed.kind() === "ipv6" && !parsed.match(GLOBAL_UNICAST_V6)) return "not global unicast";
  return null;
}

export const isPublicUnicast = (address: string): boolean => nonPublicRange(address) === null;

/**
 * The ranges `WEBHOOK_ALLOW_PRIVATE=true` lets through: the machine itself and the networks a
 * receiver of one's own lives on (RFC 1918, IPv6 unique-local, CGNAT). Link-local, with the cloud
 * metadata service at 169.254.169.254 in it, stays refused even then: no receiver lives there, and
 * it hands out credentials.
 */
const PRIVATE_NETWORK_RANGES = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat"]);

/**
 * Cloud metadata services that sit inside the ranges above, refused even with private networks
 * allowed: AWS's IMDS over IPv6 (fd00:ec2::254, unique-local) and Alibaba Cloud's (100.100.100.200,
 * CGNAT). The link-local ones (169.254.169.254, ECS' 169.254.170.2) are refused as link-local.
 */
const METADATA_SERVICES = new Set(["fd00:ec2::254", "100.100.100.200"]);

/**
 * null when a webhook may go to `address`, otherwise why not: public unicast only, or with
 * `allowPrivateNetworks` also loopback and private networks (never link-local or metadata).
 */
export function refusedRange(address: string, allowPrivateNetworks: boolean): string | null {
  const range = nonPublicRange(address);
  if (range === null || !allowPrivateNetworks || !PRIVATE_NETWORK_RANGES.has(range)) return range;
  // Judged by the host reached, as the range is: the NAT64 form of Alibaba's service is that service.
  return METADATA_SERVICES.has(reached(address).toString()) ? "metadata service" : null;
}
