import express from "express";
import type { AddressInfo } from "node:net";
import { generateApiKey } from "@relay/core";
import type { ApiKeyRecord } from "@relay/db";
import { authenticate, assertProjectAccess } from "./auth";
import { errorHandler } from "./errors";
import { createLogger } from "@relay/core";

/** The middleware over an in-memory key table (the repository is tested against Postgres elsewhere). */
async function serve(keys: Map<string, ApiKeyRecord>, cacheTtlMs: number, clock: { now: number }) {
  let lookups = 0;
  const app = express();
  app.use(
    authenticate({
      apiKeys: { findById: async (id) => (lookups++, keys.get(id) ?? null) },
      cacheTtlMs,
      now: () => clock.now,
    }),
  );
  app.get("/", (_req, res) => {
    res.json(res.locals.principal);
  });
  app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
  const server = app.listen(0);
  await new Promise((r) => server.once("listening", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, server, lookups: () => lookups };
}

const record = (projectId: string, key = generateApiKey()): [ApiKeyRecord, string] => [
  { id: key.id, projectId, name: "k", secretHash: key.secretHash, createdAt: new Date(), revokedAt: null, scopes: ["send", "sign", "read", "webhooks", "wallets"], allowedCidrs: [] },
  key.token,
];

describe("authenticate", () => {
  it("puts the key's project on the request and accepts any case of 'Bearer'", async () => {
    const [row, token] = record("p1");
    const s = await serve(new Map([[row.id, row]]), 0, { now: 0 });
    try {
      const res = await fetch(s.url, { headers: { authorization: `bearer ${token}` } });
      expect(await res.json()).toEqual({ keyId: row.id, projectId: "p1" });
    } finally {
      s.server.close();
    }
  });

  it("reuses a lookup within the cache time and sees a revocation after it", async () => {
    const [row, token] = record("p1");
    const clock = { now: 0 };
    const s = await serve(new Map([[row.id, row]]), 1000, clock);
    try {
      const call = () => fetch(s.url, { headers: { authorization: `Bearer ${token}` } });
      expect((await call()).status).toBe(200);
      row.revokedAt = new Date();
      expect((await call()).status).toBe(200);
      expect(s.lookups()).toBe(1);
      clock.now = 1001;
      expect((await call()).status).toBe(401);
      expect(s.lookups()).toBe(2);
    } finally {
      s.server.close();
    }
  });

  it("refuses a wrong secret for a key whose right secret just passed (remembered tokens are whole tokens)", async () => {
    const [row, token] = record("p1");
    const s = await serve(new Map([[row.id, row]]), 60_000, { now: 0 });
    try {
      const wrong = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
      expect((await fetch(s.url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(s.url, { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(401);
      expect((await fetch(s.url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      s.server.close();
    }
  });

  it("answers the same 401 for unknown ids and wrong secrets", async () => {
    const [row, token] = record("p1");
    const s = await serve(new Map([[row.id, row]]), 0, { now: 0 });
    try {
      const unknown = await fetch(s.url, { headers: { authorization: `Bearer ${generateApiKey().token}` } });
      const wrong = await fetch(s.url, { headers: { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}` } });
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(await unknown.json()).toEqual(await wrong.json());
    } finally {
      s.server.close();
    }
  });

  it("denies access to another project with 403", () => {
    expect(() => assertProjectAccess({ keyId: "k", projectId: "a" }, "b")).toThrow(/does not belong to project b/);
    expect(() => assertProjectAccess({ keyId: "k", projectId: "a" }, "a")).not.toThrow();
  });
});
