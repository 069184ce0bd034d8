import type { RequestHandler } from "express";
import { AppError, operatorTokenMatches, parseApiKey, secretMatches } from "@relay/core";
import type { ApiKeyRepository } from "@relay/db";
import { checkKeyLimits, keyLimitsOf, type KeyLimits } from "./key-limits";

export interface Principal {
  keyId: string;
  projectId: string;
  /** The operator's ADMIN_TOKEN: reads (GET) of any project, nothing else (docs/console.md). */
  operator?: true;
}

/** The principal of a request made with ADMIN_TOKEN: no key and no project of its own. */
const OPERATOR: Principal = Object.freeze({ keyId: "operator", projectId: "", operator: true });

export interface AuthDeps {
  apiKeys: Pick<ApiKeyRepository, "findById">;
  /** How long a key lookup is reused; a revocation takes effect within this time. 0 = never cache. */
  cacheTtlMs: number;
  /** ADMIN_TOKEN, when set: also accepted as a Bearer token, for GET routes of any project. */
  operatorToken?: string | undefined;
  now?: () => number;
}

interface CachedKey {
  projectId: string;
  secretHash: Uint8Array;
  revoked: boolean;
  expiresAt: number;
  limits: KeyLimits;
}

const MAX_CACHED = 10_000;

/**
 * `Authorization: Bearer <key>` → the key's project in `res.locals.principal`. Malformed, unknown
 * and revoked keys are all 401 with the same message, so a caller learns nothing about which keys
 * exist; a missing header, or one not of the Bearer form (the key alone, another scheme), says so.
 * A valid key used from outside its IP allowlist, or on a route outside its scopes, is 403
 * (key-limits.ts); scopes and allowlist are cached with the key, for `cacheTtlMs` like a revocation.
 */
export function authenticate(deps: AuthDeps): RequestHandler {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, CachedKey | null>();
  const expiry = new Map<string, number>();
  /**
   * Tokens that passed the full check, until their key's cached lookup expires: a client sends
   * the same token on every request, and hashing it each time was 2 % of the gateway's CPU. A
   * revocation still takes effect within `cacheTtlMs`. Keyed by the whole token, so only the
   * exact string that was verified skips the hash.
   */
  const verified = new Map<string, Principal & { until: number; limits: KeyLimits }>();

  const lookup = async (id: string): Promise<CachedKey | null> => {
    if (deps.cacheTtlMs > 0 && (expiry.get(id) ?? 0) > now()) return cache.get(id) ?? null;
    const row = await deps.apiKeys.findById(id);
    const entry = row
      ? { projectId: row.projectId, secretHash: row.secretHash, revoked: row.revokedAt !== null, expiresAt: 0, limits: keyLimitsOf(row) }
      : null;
    if (deps.cacheTtlMs > 0) {
      if (cache.size >= MAX_CACHED) {
        const oldest = cache.keys().next().value as string;
        cache.delete(oldest);
        expiry.delete(oldest);
      }
      cache.set(id, entry);
      expiry.set(id, now() + deps.cacheTtlMs);
    }
    return entry;
  };

  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (!header) {
      throw new AppError("UNAUTHORIZED", "Missing Authorization header; send `Authorization: Bearer <API key>`");
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      // Says nothing about any key: the header's form is wrong (the key alone, another scheme).
      throw new AppError("UNAUTHORIZED", "Authorization header is not of the form `Bearer <API key>`: put the word Bearer and a space before the API key");
    }
    const token = match[1]!;
    if (deps.operatorToken && !token.startsWith("rk_") && operatorTokenMatches(`Bearer ${token}`, deps.operatorToken)) {
      // Reads only: the operator looks at any project, and acts for none (no key to audit it by).
      if (req.method !== "GET" && req.method !== "HEAD") {
        throw new AppError("FORBIDDEN", "The admin token reads only (GET routes of any project); use an API key of the project to change anything");
      }
      res.locals.principal = OPERATOR;
      next();
      return;
    }
    const known = verified.get(token);
    if (known && known.until > now()) {
      checkKeyLimits(known.keyId, known.limits, req);
      res.locals.principal = { keyId: known.keyId, projectId: known.projectId } satisfies Principal;
      next();
      return;
    }
    const parsed = parseApiKey(token);
    const key = parsed ? await lookup(parsed.id) : null;
    if (!parsed || !key || key.revoked || !secretMatches(parsed.secret, key.secretHash)) {
      throw new AppError("UNAUTHORIZED", "Invalid or revoked API key; send `Authorization: Bearer <API key>` with an active key");
    }
    if (deps.cacheTtlMs > 0) {
      if (verified.size >= MAX_CACHED) verified.clear();
      verified.set(token, { keyId: parsed.id, projectId: key.projectId, until: expiry.get(parsed.id) ?? 0, limits: key.limits });
    }
    // After the key is known good: a 403 here tells only the holder of a valid key about that key.
    checkKeyLimits(parsed.id, key.limits, req);
    res.locals.principal = { keyId: parsed.id, projectId: key.projectId } satisfies Principal;
    next();
  };
}

export function principalOf(locals: Record<string, unknown>): Principal {
  const principal = locals.principal as Principal | undefined;
  if (!principal) throw new AppError("INTERNAL", "Route is missing the authenticate middleware");
  return principal;
}

/** 403 unless the key belongs to the project the request names; the operator's token reads any. */
export function assertProjectAccess(principal: Principal, projectId: string): void {
  if (principal.operator) return;
  if (principal.projectId !== projectId) {
    throw new AppError("FORBIDDEN", `This API key does not belong to project ${projectId}`);
  }
}
