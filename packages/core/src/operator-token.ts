import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Operator credentials (the admin dashboard, metrics scrapes) are one configured token, sent as
 * `Authorization: Bearer <token>` (scrapers, scripts) or as the password of HTTP Basic (browsers,
 * which prompt for it; the user name is ignored). Compared as SHA-256 digests in constant time,
 * so neither the content nor the length of the token leaks through timing.
 */
export function presentedToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const [scheme, value] = authorization.trim().split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === "bearer") return value;
  if (scheme.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** True when the request's Authorization header carries `expected` (Bearer or Basic password). */
export function operatorTokenMatches(authorization: string | undefined, expected: string): boolean {
  const token = presentedToken(authorization);
  return token !== undefined && timingSafeEqual(digest(token), digest(expected));
}
