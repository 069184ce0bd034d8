import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { createLogger } from "@relay/core";
import { errorHandler } from "./errors";
import { jsonBody } from "./json-body";

describe("jsonBody", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.use(jsonBody(1024));
    app.post("/", (req, res) => {
      res.json({ got: req.body as unknown });
    });
    app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const send = async (body: Buffer, encoding: string) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "content-encoding": encoding }, body });
    return { status: res.status, body: (await res.json()) as { message?: string; got?: unknown } };
  };

  it("reads compressed JSON", async () => {
    expect(await send(gzipSync('{"a":1}'), "gzip")).toEqual({ status: 200, body: { got: { a: 1 } } });
    expect(await send(brotliCompressSync('{"a":2}'), "br")).toEqual({ status: 200, body: { got: { a: 2 } } });
  });

  it.each(["gzip", "deflate", "br"])("answers a body that is not valid %s with a 400 that says so", async (encoding) => {
    const answer = await send(Buffer.from("certainly not compressed"), encoding);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(`Request body is not valid "${encoding}" data; send it uncompressed, or compressed as its Content-Encoding says`);
  });

  it("refuses a __proto__ key at any depth with a 400 naming it, and takes constructor and prototype as plain fields", async () => {
    const post = async (text: string) => {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text });
      return { status: res.status, body: (await res.json()) as { message?: string; got?: unknown } };
    };
    const escaped = '{"args":{"\\u005f_pr\\u006fto__":{"a":1}}}'; // JSON escapes spelling __proto__
    for (const text of ['{"__proto__":{"admin":true}}', '{"args":{"__proto__":{"a":1},"a":"1"}}', '[{"x":[{"__proto__":null}]}]', escaped]) {
      expect(await post(text)).toEqual({ status: 400, body: { message: 'Request body has a field named "__proto__", which is not accepted anywhere in a request' } });
    }
    expect(await post('{"constructor":{"prototype":{"a":1}}}')).toEqual({ status: 200, body: { got: { constructor: { prototype: { a: 1 } } } } });
    expect(await post('{"a":"\\u00e9 __proto__"}')).toEqual({ status: 200, body: { got: { a: "é __proto__" } } });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("keeps the limit on the decompressed size", async () => {
    const answer = await send(gzipSync(JSON.stringify({ pad: "x".repeat(5000) })), "gzip");
    expect(answer.status).toBe(413);
  });
});
