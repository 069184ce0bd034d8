import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import { RedisStore, type RedisReply } from "rate-limit-redis";
import type { ClientRateLimitInfo, IncrementResponse } from "express-rate-limit";
import type { Redis } from "ioredis";
import type { Principal } from "./auth";

export interface RateLimitDeps {
  redis: Redis;
  /** Key prefix in Redis, shared by all gateway replicas so the limit holds across them. */
  prefix: string;
  perMinute: number;
}

/**
 * rate-limit-redis loads its Lua scripts once, when the limiter is created; if Redis cannot be
 * asked at that moment the rejected load is kept and every later count fails, so the limit would be
 * off until a restart. This store loads a script again whenever the last load failed.
 */
class ReloadingRedisStore extends RedisStore {
  override async increment(key: string): Promise<IncrementResponse> {
    await this.incrementScriptSha.catch(() => {
      this.incrementScriptSha = this.loadIncrementScript();
    });
    return super.increment(key);
  }

  override async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    await this.getScriptSha.catch(() => {
      this.getScriptSha = this.loadGetScript();
    });
    return super.get(key);
  }
}

/**
 * Per-API-key rate limit (runs after authentication), counted in Redis so that N gateways share
 * one budget. 429 with Retry-After and RateLimit headers. If Redis cannot be asked, the request
 * passes: the limiter must not turn a Redis blip into refused requests on its own.
 */
export function rateLimitPerKey(deps: RateLimitDeps): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: deps.perMinute,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    passOnStoreError: true,
    keyGenerator: (_req, res) => (res.locals.principal as Principal).keyId,
    store: new ReloadingRedisStore({
      prefix: `${deps.prefix}:ratelimit:`,
      sendCommand: (command: string, ...args: string[]) => deps.redis.call(command, ...args) as Promise<RedisReply>,
    }),
    handler: (_req, res, _next, options) => {
      const retryAfter = res.getHeader("Retry-After");
      res.status(options.statusCode).json({
        message: `Rate limit of ${deps.perMinute} requests per minute for this API key exceeded; retry after ${retryAfter ?? 60} s`,
      });
    },
  });
}
