import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@relay/core";
import { errorHandler, notFound } from "./errors";

describe("error answers quote the request only briefly", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.get("/item/:id", (_req, res) => {
      res.json({});
    });
    app.use(notFound);
    app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const message = async (path: string) => ((await (await fetch(url + path)).json()) as { message: string }).message;

  it("cuts a long path in a 404", async () => {
    const answer = await message(`/${"a".repeat(5000)}`);
    expect(answer).toBe(`No route for GET /${"a".repeat(199)}…; see /docs for the API`);
  });

  it("cuts a long undecodable path parameter in a 400", async () => {
    const answer = await message(`/item/%${"b".repeat(5000)}`);
    expect(answer.startsWith("Failed to decode param '%bbb")).toBe(true);
    expect(answer.length).toBe(301);
  });
});
