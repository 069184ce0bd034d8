import type { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { transactionStatusChangeEventSchema, walletBalanceLowEventSchema } from "@relay/webhooks";

/** The reference's sections, in the order /docs shows them, and which routes each holds. */
const TAGS: readonly { name: string; description: string; holds: (path: string) => boolean }[] = [
  { name: "Projects", description: "The projects a credential reads", holds: (p) => p === "/transact/projects" },
  { name: "Policies", description: "The project's policy: allowed contracts and functions, value and gas limits (set by an operator)", holds: (p) => p === "/transact/project/{projectId}/policy" },
  { name: "Transactions", description: "Send contract calls, follow, list, cancel and speed them up", holds: (p) => p.startsWith("/transact/") && p !== "/transact/call" },
  { name: "Signing", description: "Personal and EIP-712 signatures by project wallets, and their reads", holds: (p) => /\/(personalSign|signTypedData|signatures?|personalSignatures?)(\/|$)/.test(p) },
  { name: "Syndicate reads", description: "Syndicate's Transaction Cloud reads of requests, attempts and stats", holds: (p) => /\/wallet\/project\/\{projectId\}\/(request|requests|transactions|transactionStats)(\/|$)/.test(p) },
  { name: "Wallets", description: "Create, list, deactivate and retire a project's wallets", holds: (p) => p.startsWith("/wallet/") },
  { name: "Managed gas", description: "Top-ups of a project's wallets from a funding wallet", holds: (p) => p.startsWith("/funding/") },
  { name: "Read-only calls", description: "The decoded result of a view function", holds: (p) => p === "/transact/call" },
  { name: "Webhooks", description: "Register callback URLs for events, rotate their secrets", holds: (p) => p.startsWith("/webhook/") },
  { name: "Operations", description: "Health, readiness and this document", holds: () => true },
];

type OpenAPIObject = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Each operation in one section (the first whose rule holds its path), and the sections listed. */
export function withTags(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const tag = TAGS.find((t) => t.holds(path))!.name;
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operation.tags = [tag];
    }
  }
  document.tags = TAGS.map(({ name, description }) => ({ name, description }));
  return document;
}

/**
 * The events POSTed to registered callback URLs (docs/webhooks.md), as the document's `webhooks`:
 * one per event type, with the body's schema and the headers a receiver verifies.
 */
export function registerEventWebhooks(registry: OpenAPIRegistry): void {
  const headers = {
    description:
      "Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and Syndicate's `syndicate-signature`; verify over the raw body (docs/webhooks.md)",
  };
  const events = [
    ["TransactionStatusChange", transactionStatusChangeEventSchema, "A transaction moved to another status (or a note without a move, status = previousStatus)"],
    ["WalletBalanceLow", walletBalanceLowEventSchema, "A wallet's balance fell below its chain's low-balance threshold"],
  ] as const;
  for (const [name, schema, summary] of events) {
    registry.registerWebhook({
      method: "post",
      path: name,
      summary,
      description: headers.description,
      request: { body: { content: { "application/json": { schema } } } },
      responses: { 200: { description: "Any 2xx: delivered. Anything else, or no answer within the timeout: retried on the schedule in docs/webhooks.md" } },
    });
  }
}
