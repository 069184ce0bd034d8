import { createServer, type Server } from "node:http";
import { RelayClient, verifyWebhook, WebhookVerificationError, type RelayEvent, type TransactionRecord } from "@relay/client";

/**
 * Sends one contract call with @relay/client and follows it to its final status, twice over: by
 * reading it (waitForTransaction) and by its webhooks, received on a small HTTP server here and
 * verified with the client's verifyWebhook. The callback is removed again at the end.
 */

export interface SendAndFollowOptions {
  relay: RelayClient;
  chainId: number;
  contractAddress: string;
  functionSignature: string;
  args?: Record<string, unknown>;
  /** Where this process receives webhooks, and the URL the relay reaches it at. */
  webhook: { host: string; port: number; publicUrl: string };
  /** Called with each verified event as it arrives. */
  onEvent?: (event: RelayEvent) => void;
  timeoutMs?: number;
}

export interface SendAndFollowResult {
  transaction: TransactionRecord;
  /** The transaction's events, verified, in the order they arrived. */
  events: RelayEvent[];
}

export async function sendAndFollow(options: SendAndFollowOptions): Promise<SendAndFollowResult> {
  const { relay } = options;
  const callback = await relay.createEventCallback({ callbackURL: options.webhook.publicUrl, eventType: "TransactionStatusChange" });
  const events: RelayEvent[] = [];
  const server = listenForWebhooks(callback.secret, (event) => {
    events.push(event);
    options.onEvent?.(event);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.webhook.port, options.webhook.host, () => resolve());
  });
  try {
    const { transactionId } = await relay.sendTransaction({
      chainId: options.chainId,
      contractAddress: options.contractAddress,
      functionSignature: options.functionSignature,
      args: options.args ?? null,
    });
    const transaction = await relay.waitForTransaction(transactionId, { intervalMs: 500, timeoutMs: options.timeoutMs ?? 120_000 });
    // The event of the final status may arrive just after the read saw it.
    const deadline = Date.now() + 10_000;
    const mine = () => events.filter((e) => e.eventType === "TransactionStatusChange" && e.data.transactionId === transactionId);
    while (!mine().some((e) => e.data.status === transaction.status) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return { transaction, events: mine() };
  } finally {
    await relay.deleteEventCallback(callback.id);
    await new Promise((resolve) => server.close(resolve));
  }
}

/** An HTTP server that verifies each delivery (401 when it is not the relay's) and hands on its event once (deliveries are at-least-once). */
export function listenForWebhooks(secret: string, onEvent: (event: RelayEvent) => void): Server {
  const seen = new Set<string>();
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        const event = verifyWebhook(secret, Buffer.concat(chunks), req.headers);
        if (!seen.has(event.id)) {
          seen.add(event.id);
          onEvent(event);
        }
        res.statusCode = 200;
      } catch (error) {
        res.statusCode = error instanceof WebhookVerificationError ? 401 : 500;
      }
      res.end();
    });
  });
}

/** From the command line: RELAY_URL, RELAY_API_KEY, RELAY_PROJECT_ID, CHAIN_ID, CONTRACT_ADDRESS, FUNCTION_SIGNATURE, ARGS (JSON), WEBHOOK_PORT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const need = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is required (see examples/send-and-follow/README.md)`);
    return value;
  };
  const port = Number(env.WEBHOOK_PORT ?? 4001);
  const relay = new RelayClient({ baseUrl: env.RELAY_URL ?? "http://localhost:3000", apiKey: need("RELAY_API_KEY"), projectId: need("RELAY_PROJECT_ID") });
  const { transaction, events } = await sendAndFollow({
    relay,
    chainId: Number(env.CHAIN_ID ?? 31337),
    contractAddress: need("CONTRACT_ADDRESS"),
    functionSignature: need("FUNCTION_SIGNATURE"),
    args: env.ARGS ? (JSON.parse(env.ARGS) as Record<string, unknown>) : undefined,
    webhook: { host: env.WEBHOOK_HOST ?? "127.0.0.1", port, publicUrl: env.WEBHOOK_URL ?? `http://127.0.0.1:${port}/` },
    onEvent: (event) => console.log(`event ${event.eventType}: ${JSON.stringify(event.data)}`),
  });
  console.log(`transaction ${transaction.transactionId}: ${transaction.status}${transaction.hash ? ` in ${transaction.hash}` : ""}${transaction.error ? ` (${transaction.error})` : ""}`);
  console.log(`${events.length} verified webhook events`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
