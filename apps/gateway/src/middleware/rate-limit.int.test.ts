import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { Redis } from "ioredis";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { rateLimitPerKey } from "./rate-limit";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("rateLimitPerKey", () => {
  test("limits once Redis answers, even when Redis could not be asked when the limiter was created", async () => {
    // Not connected yet and refusing to queue: the limiter's script loads at creation fail.
    const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const prefix = testQueuePrefix("rate-limit");
    const app = express();
    app.use((_req, res, next) => {
      res.locals.principal = { keyId: "key-1" };
      next();
    });
    app.use(rateLimitPerKey({ redis, prefix, perMinute: 2 }));
    app.get("/", (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      // The first command (the failed script load) started the connection; wait until it is up.
      if (redis.status !== "ready") await once(redis, "ready");
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(url)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await new Promise((r) => server.close(r));
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
  });
});
