import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import type { Redis } from "@relay/queue";
import type { Logger } from "@relay/core";
import type { Principal } from "./auth";
import { CoalescingRedisStore } from "./rate-limit-store";

export interface RateLimitDeps {
  redis: Redis;
  /** Key prefix in Redis, shared by all gateway replicas so the limit holds across them. */
  prefix: string;
  perMinute: number;
  logger: Logger;
}

/** At most one warning per this many ms while Redis cannot count hits. */
const WARN_EVERY_MS = 10_000;

/**
 * Per-API-key rate limit (runs after authentication), counted in Redis so that N gateways share
 * one budget. 429 with Retry-After and RateLimit headers. If Redis cannot be asked, the request
 * passes: the limiter must not turn a Redis blip into refused requests on its own.
 */
export function rateLimitPerKey(deps: RateLimitDeps): RequestHandler {
  let warnedAt = 0;
  const onError = (err: Error) => {
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    deps.logger.warn({ err: err.message }, "rate limit not counted: Redis cannot be asked; requests pass uncounted");
  };
  return rateLimit({
    windowMs: 60_000,
    limit: deps.perMinute,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    passOnStoreError: true,
    keyGenerator: (_req, res) => (res.locals.principal as Principal).keyId,
    store: new CoalescingRedisStore(deps.redis, `${deps.prefix}:ratelimit:`, onError),
    handler: (_req, res, _next, options) => {
      const retryAfter = res.getHeader("Retry-After");
      res.status(options.statusCode).json({
        message: `Rate limit of ${deps.perMinute} requests per minute for this API key exceeded; retry after ${retryAfter ?? 60} s`,
      });
    },
  });
}
