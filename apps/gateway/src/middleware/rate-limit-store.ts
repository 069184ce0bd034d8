import type { IncrementResponse, Options, Store } from "express-rate-limit";
import type { Redis } from "@relay/queue";

/**
 * One fixed window per key: the first hit of a window creates the counter with the window as its
 * expiry; later hits add to it. Adds `ARGV[2]` hits at once and answers the new total and the
 * milliseconds left in the window.
 */
const ADD_HITS = `
local ttl = redis.call("PTTL", KEYS[1])
if ttl <= 0 then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[1])
  return { tonumber(ARGV[2]), tonumber(ARGV[1]) }
end
return { redis.call("INCRBY", KEYS[1], ARGV[2]), ttl }`;

type AddHits = (key: string, windowMs: number, hits: number) => Promise<[number, number]>;

interface Waiting {
  hits: number;
  callers: ((result: IncrementResponse) => void)[];
}


/**
 * An express-rate-limit store in Redis, shared by all gateway replicas, that counts the hits of
 * concurrent requests of one key with one Redis call: while a call for a key is out, further hits
 * of that key wait, and go out together as soon as it returns (under light load a hit goes out at
 * once, alone). A group of n hits adds n to the counter in one step, and its requests get the
 * totals n sequential increments would have given (total - n + 1 … total), so the limit holds
 * exactly as with one call per request.
 *
 * When Redis cannot be asked, the hits are let through uncounted (each as a window's first hit) and `onError` is
 * told, once per failed call: the limiter must not turn a Redis blip into refused requests, and
 * express-rate-limit's own reaction to a failing store is a console.error with a stack per request.
 *
 * The script goes through ioredis' defineCommand, which sends EVALSHA and falls back to EVAL when
 * Redis does not know the script (a restarted Redis): nothing is loaded up front, so a Redis that
 * was unreachable when the gateway started cannot leave the limit off.
 */
export class CoalescingRedisStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;
  private readonly addHits: AddHits;
  private readonly inFlight = new Set<string>();
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {
    const command = "relayRateLimitAddHits";
    if (!(command in redis)) redis.defineCommand(command, { numberOfKeys: 1, lua: ADD_HITS });
    const add = (redis as unknown as Record<string, (key: string, windowMs: number, hits: number) => Promise<unknown>>)[command]!.bind(redis);
    this.addHits = async (key, windowMs, hits) => (await add(key, windowMs, hits)) as [number, number];
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  increment(key: string): Promise<IncrementResponse> {
    return new Promise((resolve) => {
      let group = this.waiting.get(key);
      if (!group) {
        group = { hits: 0, callers: [] };
        this.waiting.set(key, group);
      }
      group.hits++;
      group.callers.push(resolve);
      if (!this.inFlight.has(key)) this.send(key);
    });
  }

  async decrement(key: string): Promise<void> {
    await this.addHits(this.prefix + key, this.windowMs, -1);
  }

  async resetKey(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  private send(key: string): void {
    const group = this.waiting.get(key);
    if (!group) return;
    this.waiting.delete(key);
    this.inFlight.add(key);
    this.addHits(this.prefix + key, this.windowMs, group.hits).then(
      ([total, ttl]) => {
        const resetTime = new Date(Date.now() + ttl);
        const first = Number(total) - group.hits + 1;
        group.callers.forEach((settle, i) => settle({ totalHits: first + i, resetTime }));
      },
      (error: unknown) => {
        this.onError(error instanceof Error ? error : new Error(String(error)));
        // Uncounted: each passes as the first hit of a new window.
        const uncounted = { totalHits: 1, resetTime: new Date(Date.now() + this.windowMs) };
        for (const settle of group.callers) settle(uncounted);
      },
    ).finally(() => {
      this.inFlight.delete(key);
      this.send(key);
    });
  }
}
