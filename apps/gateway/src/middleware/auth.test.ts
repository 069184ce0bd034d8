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

describe("the operator's ADMIN_TOKEN on API routes", () => {
  const operatorToken = "operator-token-of-this-test-0123456789";
  async function serveWithOperator(token: string | undefined) {
    const [row, key] = record("p1");
    const app = express();
    app.use(authenticate({ apiKeys: { findById: async (id) => (id === row.id ? row : null) }, cacheTtlMs: 0, operatorToken: token }));
    const handler: express.RequestHandler = (req, res) => {
      assertProjectAccess(res.locals.principal, String(req.query.project));
      res.json(res.locals.principal);
    };
    app.get("/", handler);
    app.post("/", handler);
    app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
    const server = app.listen(0);
    await new Promise((r) => server.once("listening", r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, key };
  }

  it("reads any project with it, changes nothing, and is a plain unknown key where ADMIN_TOKEN is unset or another token is sent", async () => {
    const s = await serveWithOperator(operatorToken);
    try {
      const as = (token: string, method = "GET", project = "p2") => fetch(`${s.url}?project=${project}`, { method, headers: { authorization: `Bearer ${token}` } });
      const read = await as(operatorToken);
      expect({ status: read.status, body: await read.json() }).toEqual({ status: 200, body: { keyId: "operator", projectId: "", operator: true } });
      const write = await as(operatorToken, "POST");
      expect(write.status).toBe(403);
      expect(((await write.json()) as { message: string }).message).toMatch(/admin token reads only/);
      expect((await as(`${operatorToken}x`)).status).toBe(401);
      // A project's key still reaches only its project.
      expect((await as(s.key, "GET", "p2")).status).toBe(403);
      expect((await as(s.key, "GET", "p1")).status).toBe(200);
    } finally {
      s.server.close();
    }
    const unset = await serveWithOperator(undefined);
    try {
      expect((await fetch(`${unset.url}?project=p1`, { headers: { authorization: `Bearer ${operatorToken}` } })).status).toBe(401);
    } finally {
      unset.server.close();
    }
  });
});
