import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { Redis } from "ioredis";
import { createLogger } from "@relay/core";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { rateLimitPerKey } from "./rate-limit";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("rateLimitPerKey", () => {
  test("lets requests through while Redis cannot be asked, and limits once it answers", async () => {
    const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const prefix = testQueuePrefix("rate-limit");
    const app = express();
    app.use((_req, res, next) => {
      res.locals.principal = { keyId: "key-1" };
      next();
    });
    app.use(rateLimitPerKey({ redis, prefix, perMinute: 2, logger: createLogger({ name: "test", level: "silent" }) }));
    app.get("/", (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      // Not connected, and refusing to queue: this hit cannot be counted and passes.
      expect((await fetch(url)).status).toBe(200);
      // The first hit started the connection (ioredis connects on a command); wait until it is up.
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
