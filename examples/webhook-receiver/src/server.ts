import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";

/**
 * A minimal receiver for the relay's webhooks (docs/webhooks.md): verifies the Standard Webhooks
 * signature, deduplicates on `webhook-id` (delivery is at-least-once), and answers quickly.
 *
 * `onEvent` should only hand the event off (store it, enqueue it) and return: the relay waits at
 * most a few seconds for the answer. If it throws, the receiver answers 500 and forgets the id, so
 * the relay's retry is processed again.
 */

export interface WebhookEvent {
  id: string;
  eventType: string;
  projectId: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface ReceiverOptions {
  /** The `whsec_…` secret returned when the callback was registered. */
  secret: string;
  onEvent: (event: WebhookEvent, webhookId: string) => void | Promise<void>;
  /** Largest request body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** How many webhook ids are remembered for deduplication (default 10,000; use a database in production). */
  rememberIds?: number;
}

export function createReceiver(options: ReceiverOptions): Server {
  const webhook = new Webhook(options.secret);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const rememberIds = options.rememberIds ?? 10_000;
  // Insertion-ordered: the oldest ids are forgotten first.
  const seen = new Set<string>();
  const inFlight = new Set<string>();

  const answer = (res: ServerResponse, status: number, text: string) => {
    res.statusCode = status;
    res.setHeader("content-type", "text/plain");
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    let event: WebhookEvent;
    try {
      // Verifies the signature over "{id}.{timestamp}.{body}" and that the timestamp is recent.
      event = webhook.verify(body, req.headers as Record<string, string>) as WebhookEvent;
    } catch {
      return answer(res, 401, "invalid signature");
    }
    const webhookId = String(req.headers["webhook-id"]);
    if (seen.has(webhookId)) return answer(res, 200, "already received");
    // The same event arriving twice at once (a retry while the first attempt is still open):
    // a non-2xx makes the relay try again later, when the outcome of the first is known.
    if (inFlight.has(webhookId)) return answer(res, 409, "in progress");
    inFlight.add(webhookId);
    try {
      await options.onEvent(event, webhookId);
    } catch {
      return answer(res, 500, "not processed");
    } finally {
      inFlight.delete(webhookId);
    }
    seen.add(webhookId);
    if (seen.size > rememberIds) seen.delete(seen.values().next().value as string);
    answer(res, 200, "ok");
  };

  return createServer((req, res) => {
    if (req.method !== "POST") return answer(res, 405, "POST only");
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        tooLarge = true;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) return answer(res, 413, "body too large");
      handle(req, res, Buffer.concat(chunks).toString("utf8")).catch(() => {
        if (!res.headersSent) answer(res, 500, "error");
      });
    });
    req.on("error", () => {
      if (!res.headersSent) answer(res, 400, "bad request");
    });
  });
}

/** `WEBHOOK_SECRET=whsec_… PORT=4000 node --import tsx src/server.ts`: logs every event it receives (port 4000 by default: the quick start's gateway has 3000). */
export function main(env: NodeJS.ProcessEnv = process.env): Server {
  const secret = env.WEBHOOK_SECRET;
  if (!secret?.startsWith("whsec_")) throw new Error("set WEBHOOK_SECRET to the whsec_… secret of the registration");
  const port = Number(env.PORT ?? 4000);
  const server = createReceiver({
    secret,
    onEvent: (event, webhookId) => {
      console.log(JSON.stringify({ webhookId, eventType: event.eventType, data: event.data }));
    },
  });
  server.listen(port, () => console.log(`webhook receiver listening on port ${port}`));
  return server;
}

if (require.main === module) main();
