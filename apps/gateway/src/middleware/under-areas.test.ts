import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { underAreas } from "./under-areas";

describe("underAreas", () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];
  const mark =
    (name: string): RequestHandler =>
    (_req, _res, next) => {
      seen.push(name);
      next();
    };
  beforeAll(async () => {
    const app = express();
    app.use(
      underAreas(
        ["/wallet", "/transact"],
        mark("first"),
        async (req, _res, next) => {
          await Promise.resolve();
          if (req.query.fail === "reject") throw new Error("rejected");
          next();
        },
        mark("second"),
      ),
    );
    // A second group whose first handler throws synchronously, and whose second ends the response.
    app.use(
      underAreas(
        ["/sync"],
        (req, _res, next) => {
          if (req.query.fail) throw new Error("thrown");
          next(req.query.skip ? "route" : undefined);
        },
        (_req, res) => {
          res.json({ ended: true });
        },
      ),
    );
    app.use((req, res) => {
      res.json({ reached: req.path, seen: [...seen] });
    });
    app.use(((err, _req, res, _next) => {
      res.status(500).json({ error: (err as Error).message, seen: [...seen] });
    }) as ErrorRequestHandler);
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const get = async (path: string) => {
    seen.length = 0;
    const res = await fetch(url + path);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("runs the handlers in order for an area's paths, then the rest of the app", async () => {
    expect(await get("/wallet/x")).toEqual({ status: 200, body: { reached: "/wallet/x", seen: ["first", "second"] } });
    expect((await get("/wallet")).body.seen).toEqual(["first", "second"]);
  });

  it("lets every other path pass by untouched", async () => {
    for (const path of ["/walletx/a", "/health", "/", "//wallet/a", "/other/wallet"]) {
      const answer = await get(path);
      expect([path, answer.status, answer.body.seen]).toEqual([path, 200, []]);
    }
  });

  it("matches the area of a target in absolute form (POST http://host/wallet/… HTTP/1.1), which Express routes by its path", async () => {
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        seen.length = 0;
        const socket = connect(Number(new URL(url).port), "127.0.0.1", () => socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString("utf8")));
        socket.on("end", () => resolve(answer.slice(answer.indexOf("\r\n\r\n") + 4)));
        socket.on("error", reject);
      });
    expect(JSON.parse(await raw("http://x/wallet/x"))).toEqual({ reached: "/wallet/x", seen: ["first", "second"] });
    expect(JSON.parse(await raw("HTTP://X/SYNC?x=1"))).toEqual({ ended: true });
    expect(JSON.parse(await raw("http://x/health"))).toEqual({ reached: "/health", seen: [] });
  });

  it("matches the area with a query string or in capitals", async () => {
    const answer = await get("/SYNC?x=1");
    expect(answer.body).toEqual({ ended: true });
  });

  it("treats next('route') as Express does between app-level layers: the next handler still runs", async () => {
    expect((await get("/sync/a?skip=1")).body).toEqual({ ended: true });
  });

  it("passes a rejected promise and a thrown error to the error handler", async () => {
    expect(await get("/Transact/a?fail=reject")).toEqual({ status: 500, body: { error: "rejected", seen: ["first"] } });
    expect(await get("/sync/a?fail=1")).toEqual({ status: 500, body: { error: "thrown", seen: [] } });
  });
});
