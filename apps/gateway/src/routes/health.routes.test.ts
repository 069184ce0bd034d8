import express from "express";
import type { AddressInfo } from "node:net";
import { captureLogs } from "../../test/harness";
import { healthRoutes } from "./health.routes";

describe("/ready", () => {
  it("answers 503 naming the check that failed, and keeps the driver's words (hosts, ports) for the log", async () => {
    const { logger, lines } = captureLogs();
    const app = express().use(
      healthRoutes({
        checks: { postgres: () => Promise.reject(new Error("connect ECONNREFUSED 10.20.30.40:5432")), redis: () => Promise.resolve("PONG") },
        logger,
      }),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/ready`);
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ status: "not ready", checks: { postgres: "unavailable", redis: "ok" } });
      expect(text).not.toContain("10.20.30.40");
      expect(lines.some((l) => l.includes("readiness check failed") && l.includes("10.20.30.40:5432"))).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
