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
  /** The same, with a limit (1 MiB) that lets very deep bodies through to the walk. */
  let big: Server;
  let bigUrl: string;
  const start = async (limitBytes: number): Promise<[Server, string]> => {
    const app = express();
    app.use(jsonBody(limitBytes));
    app.post("/", (req, res) => {
      const got = Array.isArray((req.body as { x?: unknown })?.x) ? "deep" : (req.body as unknown);
      // A BigInt (an integer past 2^53) comes back as "<digits>n".
      res.type("json").send(JSON.stringify({ got }, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value)));
    });
    app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
    const listening = app.listen(0, "127.0.0.1");
    await new Promise((r) => listening.once("listening", r));
    return [listening, `http://127.0.0.1:${(listening.address() as AddressInfo).port}/`];
  };
  beforeAll(async () => {
    [server, url] = await start(1024);
    [big, bigUrl] = await start(1024 * 1024);
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await new Promise((r) => big.close(r));
  });

  const send = async (body: Buffer, encoding: string) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "content-encoding": encoding }, body });
    return { status: res.status, body: (await res.json()) as { message?: string; got?: unknown } };
  };

  it("reads compressed JSON", async () => {
    expect(await send(gzipSync('{"a":1}'), "gzip")).toEqual({ status: 200, body: { got: { a: 1 } } });
    expect(await send(brotliCompressSync('{"a":2}'), "br")).toEqual({ status: 200, body: { got: { a: 2 } } });
  });

  it("keeps integers past 2^53 exact, as BigInt, and leaves every other value as JSON.parse reads it", async () => {
    const text = '{"a":123456789012345678901234567890,"b":[9007199254740993,-9007199254740993],"c":9007199254740991,"d":1.5,"e":"12345678901234567890","f":1e30,"g":1.0,"h":100e-2,"i":-0}';
    expect(await send(Buffer.from(text), "identity")).toEqual({
      status: 200,
      body: { got: { a: "123456789012345678901234567890n", b: ["9007199254740993n", "-9007199254740993n"], c: 9007199254740991, d: 1.5, e: "12345678901234567890", f: "1000000000000000000000000000000n", g: 1, h: 1, i: 0 } },
    });
    expect(await send(gzipSync("\uFEFF[18446744073709551617]"), "gzip")).toEqual({ status: 200, body: { got: ["18446744073709551617n"] } });
  });

  it("hands over a number whose fraction a double rounds away as what was written, not as the whole number", async () => {
    const text = '{"a":4503599627370496.5,"b":0.99999999999999999,"c":123456789012345.0000001,"d":1e-400,"e":"4503599627370496.5 in a string"}';
    expect(await send(Buffer.from(text), "identity")).toEqual({
      status: 200,
      body: { got: { a: { text: "4503599627370496.5" }, b: { text: "0.99999999999999999" }, c: { text: "123456789012345.0000001" }, d: { text: "1e-400" }, e: "4503599627370496.5 in a string" } },
    });
  });

  it("judges a body with a key given twice as before (the last one counts), large integers or not", async () => {
    expect(await send(Buffer.from('{"a":1,"a":12345678901234567890}'), "identity")).toEqual({ status: 200, body: { got: { a: 12345678901234567000 } } });
  });

  it.each(["gzip", "deflate", "br"])("answers a body that is not valid %s with a 400 that says so", async (encoding) => {
    const answer = await send(Buffer.from("certainly not compressed"), encoding);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(`Request body is not valid "${encoding}" data; send it uncompressed, or compressed as its Content-Encoding says`);
  });

  it("walks a body nested deeper than the call stack without overflowing it, and still finds a __proto__ key at the bottom", async () => {
    const depth = 20_000;
    const post = async (text: string) => {
      const res = await fetch(bigUrl, { method: "POST", headers: { "content-type": "application/json" }, body: text });
      return { status: res.status, body: (await res.json()) as { message?: string; got?: unknown } };
    };
    // A \u escape makes the body a suspect, so it is walked.
    const plain = `{"m":"\u0041","x":${"[".repeat(depth)}1${"]".repeat(depth)}}`;
    expect((await post(plain)).status).toBe(200);
    const hidden = `{"m":"\u0041","x":${'[{"a":'.repeat(depth)}{"__proto__":1}${"}]".repeat(depth)}}`;
    expect(await post(hidden)).toEqual({ status: 400, body: { message: 'Request body has a field named "__proto__", which is not accepted anywhere in a request' } });
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

  it("answers a body in a charset other than UTF-8 with a 415, so a __proto__ key cannot hide in UTF-16 or UTF-7", async () => {
    const post = async (body: Buffer, contentType: string) => {
      const res = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body });
      return { status: res.status, body: (await res.json()) as { message?: string; got?: unknown } };
    };
    const refused = { status: 415, body: { message: "Only UTF-8 JSON bodies are accepted" } };
    // body-parser itself decodes these: the raw bytes hold no "__proto__" in UTF-8 to look for.
    expect(await post(Buffer.from('{"args":{"__proto__":null,"a":1}}', "utf16le"), "application/json; charset=utf-16le")).toEqual(refused);
    expect(await post(Buffer.from('{"args":{"+AF8AXw-proto+AF8AXw-":null,"a":1}}'), "application/json; charset=UTF-7")).toEqual(refused);
    expect(await post(Buffer.from('{"a":1}', "utf16le"), 'application/json; charset="UTF-16"')).toEqual(refused);
    expect(await post(Buffer.from('{"a":1}'), "application/json; charset=latin1")).toEqual(refused);
    // UTF-8, named in any case or not at all, is read.
    expect(await post(Buffer.from('{"a":1}'), "application/json; charset=UTF-8")).toEqual({ status: 200, body: { got: { a: 1 } } });
    expect(await post(Buffer.from('{"a":2}'), "application/json")).toEqual({ status: 200, body: { got: { a: 2 } } });
  });

  it("keeps the limit on the decompressed size", async () => {
    const answer = await send(gzipSync(JSON.stringify({ pad: "x".repeat(5000) })), "gzip");
    expect(answer.status).toBe(413);
  });
});
