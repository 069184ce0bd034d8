import type { Scope } from "@relay/policies";

/**
 * Every API route and the scope a key needs for it (docs/policies.md, "API key scopes"): sending
 * and changing transactions is `send`, signing is `sign`, reading records and calling contracts
 * read-only is `read`, event callbacks are `webhooks`, creating and changing wallets is `wallets`.
 * A test holds this table to the OpenAPI document, so a new route does not go unscoped.
 */
export const ROUTE_SCOPES: readonly { method: string; path: string; scope: Scope }[] = [
  { method: "POST", path: "/transact/sendTransaction", scope: "send" },
  { method: "POST", path: "/transact/project/:projectId/transactions/:transactionId/cancel", scope: "send" },
  { method: "POST", path: "/transact/project/:projectId/transactions/:transactionId/speedUp", scope: "send" },
  { method: "GET", path: "/transact/project/:projectId/transactions", scope: "read" },
  { method: "GET", path: "/transact/project/:projectId/transactions/:transactionId", scope: "read" },
  { method: "GET", path: "/transact/project/:projectId/transactions/:transactionId/events", scope: "read" },
  { method: "GET", path: "/transact/project/:projectId/policy", scope: "read" },
  { method: "GET", path: "/transact/project/:projectId/activity", scope: "read" },
  { method: "GET", path: "/transact/projects", scope: "read" },
  { method: "POST", path: "/transact/call", scope: "read" },
  { method: "POST", path: "/wallet/project/:projectId/personalSign", scope: "sign" },
  { method: "POST", path: "/wallet/project/:projectId/signTypedData", scope: "sign" },
  { method: "GET", path: "/wallet/project/:projectId/personalSignature/:signatureId", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/personalSignatures", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/signature/:signatureId", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/signatures", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/signatures/:signatureId", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/request/:transactionId", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/requests", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/transactions", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/transactionStats", scope: "read" },
  { method: "GET", path: "/wallet/project/:projectId/wallets", scope: "read" },
  { method: "GET", path: "/funding/project/:projectId/transactions", scope: "read" },
  { method: "POST", path: "/wallet/create", scope: "wallets" },
  { method: "POST", path: "/wallet/toggleIsActive", scope: "wallets" },
  { method: "POST", path: "/wallet/retire", scope: "wallets" },
  { method: "POST", path: "/webhook/project/:projectId/eventCallback", scope: "webhooks" },
  { method: "GET", path: "/webhook/project/:projectId/eventCallbacks", scope: "webhooks" },
  { method: "DELETE", path: "/webhook/project/:projectId/eventCallback/:eventCallbackId", scope: "webhooks" },
  { method: "POST", path: "/webhook/project/:projectId/eventCallback/:eventCallbackId/rotateSecret", scope: "webhooks" },
  { method: "POST", path: "/webhook/project/:projectId/eventCallback/:eventCallbackId/delivery/:deliveryId/redeliver", scope: "webhooks" },
];

/** As Express matches a route: case-insensitively, a trailing slash allowed, a parameter one segment. */
const compiled = ROUTE_SCOPES.map((r) => ({
  method: r.method,
  scope: r.scope,
  pattern: new RegExp(`^${r.path.replace(/[.]/g, "\\.").replace(/:[A-Za-z]+/g, "[^/]+")}/?$`, "i"),
}));

/** The scope a request needs; null for a path no route serves (it answers 404 as before). HEAD is read as GET, as Express does. */
export function scopeOf(method: string, path: string): Scope | null {
  const m = method === "HEAD" ? "GET" : method;
  return compiled.find((r) => r.method === m && r.pattern.test(path))?.scope ?? null;
}
