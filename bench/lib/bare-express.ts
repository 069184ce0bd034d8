/**
 * The baseline of bench/send-ingress.bench.ts: a bare Express 5 JSON endpoint, started as its own
 * process (PORT from the environment). `express.json()` and a handler that answers
 * `{transactionId: randomUUID()}`: no auth, validation, database or queue. Express is taken from
 * the gateway's own dependencies, so both run the same version.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { resolve } from "node:path";

interface Res {
  json(body: unknown): void;
}
interface BareExpress {
  (): { use(h: unknown): void; post(path: string, h: (req: unknown, res: Res) => void): void; listen(port: number, host: string, cb: () => void): unknown };
  json(options?: { limit?: number }): unknown;
}

const express = createRequire(resolve(__dirname, "../../apps/gateway/package.json"))("express") as BareExpress;

const port = Number(process.env.PORT ?? 3999);
const app = express();
app.use(express.json({ limit: 256 * 1024 }));
app.post("/transact/sendTransaction", (_req, res) => {
  res.json({ transactionId: randomUUID() });
});
app.listen(port, "127.0.0.1", () => undefined);
process.on("SIGTERM", () => process.exit(0));
