import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * The project's webhook endpoint for the fault suite, on loopback. Registrations get their own
 * path (`/hook/<label>`), so an attempt tells which registration it was for. `mode` makes it flap:
 * "up" answers 200, "error" answers 500, "down" stops listening (connections refused) until the
 * next mode change.
 */
export type ReceiverMode = "up" | "error" | "down";

export interface Delivery {
  label: string;
  webhookId: string;
  status: number;
}

export interface FaultReceiver {
  port: number;
  urlFor(label: string): string;
  /** Every request that reached the receiver, with what it answered. */
  attempts: Delivery[];
  /** `label|webhook-id` of every request answered 2xx. */
  accepted(): Set<string>;
  setMode(mode: ReceiverMode): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<FaultReceiver> {
  let mode: ReceiverMode = "up";
  const attempts: Delivery[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      const status = mode === "up" ? 200 : 500;
      const label = (req.url ?? "").replace(/^\/hook\//, "");
      attempts.push({ label, webhookId: String(req.headers["webhook-id"] ?? ""), status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "flapping");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  return {
    port,
    urlFor: (label) => `http://127.0.0.1:${port}/hook/${label}`,
    attempts,
    accepted: () => new Set(attempts.filter((a) => a.status >= 200 && a.status < 300).map((a) => `${a.label}|${a.webhookId}`)),
    setMode: async (next) => {
      if (next === mode) return;
      const wasDown = mode === "down";
      mode = next;
      if (next === "down") await stopListening();
      else if (wasDown) await listen(port);
    },
    close: async () => {
      if (mode !== "down") await stopListening();
      mode = "down";
    },
  };
}
