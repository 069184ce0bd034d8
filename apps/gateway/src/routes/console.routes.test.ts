import express from "express";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONSOLE_CSP, consoleRoutes } from "./console.routes";

async function serve(dir: string | undefined, check: (base: string) => Promise<void>): Promise<void> {
  const server = express().use(consoleRoutes({ dir })).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await check(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe("/console", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "console-files-"));
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), "<!doctype html><title>console</title>");
    writeFileSync(join(dir, "assets/console.js"), "console.log(1)");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves the app for every path below /console, its assets as files, all under a self-only policy with no inline script", async () => {
    await serve(dir, async (base) => {
      for (const path of ["/console", "/console/", "/console/transactions/5b0f", "/console/callbacks"]) {
        const res = await fetch(base + path);
        expect({ path, status: res.status, type: res.headers.get("content-type") }).toEqual({ path, status: 200, type: expect.stringContaining("text/html") });
        expect(await res.text()).toContain("<title>console</title>");
        expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      }
      expect(CONSOLE_CSP).toContain("script-src 'self'");
      expect(CONSOLE_CSP).not.toContain("unsafe-inline");
      const js = await fetch(`${base}/console/assets/console.js`);
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toContain("javascript");
      expect(js.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      const missing = await fetch(`${base}/console/assets/nothing.js`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toContain("application/json");
    });
  });

  it("answers 503 saying how to build the files when they are not there", async () => {
    for (const where of [undefined, join(dir, "absent")]) {
      await serve(where, async (base) => {
        const res = await fetch(`${base}/console/transactions`);
        expect(res.status).toBe(503);
        expect(((await res.json()) as { message: string }).message).toMatch(/pnpm build/);
      });
    }
  });
});
