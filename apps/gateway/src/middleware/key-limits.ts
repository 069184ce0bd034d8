import type { Request } from "express";
import { AppError } from "@relay/core";
import { allowlistMatcher, SCOPES } from "@relay/policies";
import { scopeOf } from "./route-scopes";

/** What an API key may do and where from, as the auth cache keeps it with the key. */
export interface KeyLimits {
  scopes: ReadonlySet<string>;
  /** Every scope: no route to look up (most keys, on every request). */
  allScopes: boolean;
  /** Null: any address. */
  allowedFrom: ((ip: string | undefined) => boolean) | null;
}

export const keyLimitsOf = (row: { scopes: readonly string[]; allowedCidrs: readonly string[] }): KeyLimits => ({
  scopes: new Set(row.scopes),
  allScopes: SCOPES.every((s) => row.scopes.includes(s)),
  allowedFrom: row.allowedCidrs.length === 0 ? null : allowlistMatcher(row.allowedCidrs),
});

/**
 * 403 unless the key may be used from the request's address (req.ip, which honours the gateway's
 * trust proxy setting) and has the scope the route needs (route-scopes.ts). The messages name the
 * key's own id and the command that changes it, and nothing about other keys.
 */
export function checkKeyLimits(keyId: string, limits: KeyLimits, req: Request): void {
  if (limits.allowedFrom && !limits.allowedFrom(req.ip)) {
    throw new AppError(
      "FORBIDDEN",
      `API key ${keyId} may not be used from address ${req.ip ?? "unknown"}: it is outside the key's IP allowlist; an operator changes the allowlist with \`npm run relay -- keys restrict ${keyId} --allow-ip <cidr,…>\``,
    );
  }
  if (limits.allScopes) return;
  const scope = scopeOf(req.method, req.path);
  if (scope !== null && !limits.scopes.has(scope)) {
    const has = SCOPES.filter((s) => limits.scopes.has(s));
    throw new AppError(
      "FORBIDDEN",
      `API key ${keyId} lacks the "${scope}" scope this route needs (it has: ${has.length === 0 ? "none" : has.join(", ")}); use a key with it, or an operator adds it with \`npm run relay -- keys restrict ${keyId} --scopes ${[...has, scope].join(",")}\``,
    );
  }
}
