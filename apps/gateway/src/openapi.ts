import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorBody, projectIdParam } from "./http-schemas";
import {
  personalSignRequest,
  personalSignResponse,
  signatureIdParams,
  signatureRecordResponse,
} from "./routes/personal-sign.schema";
import {
  duplicateTransactionBody,
  sendTransactionRequest,
  sendTransactionResponse,
  transactionParams,
  transactionRecordResponse,
} from "./routes/transactions.schema";
import {
  eventCallbackDeleted,
  eventCallbackListItem,
  eventCallbackParams,
  eventCallbackRequest,
  eventCallbackResponse,
  eventCallbackRotated,
  deliveryParams,
  redeliveryResponse,
} from "./routes/event-callbacks.schema";
import { cancelResponse, speedUpResponse } from "./routes/transaction-control.schema";
import { fundingParams, fundingQuery, fundingTransactionsResponse } from "./syndicate/funding.schema";
import { transactionListParams, transactionListQuery, transactionListResponse } from "./routes/transaction-list.schema";
import { registerWalletPaths } from "./syndicate/wallets.openapi";
import { registerEventWebhooks, withTags } from "./openapi-groups";
import {
  attemptsQuery,
  requestParams,
  requestsQuery,
  syndicateTransactionResponse,
  transactionAttemptsResponse,
  transactionRequestsResponse,
  transactionStatsResponse,
} from "./syndicate/transaction-reads.schema";
import { registerSyndicateSigningPaths } from "./syndicate/signing.openapi";
import { projectPolicyResponse } from "./routes/policy.schema";
import { transactionEventsResponse } from "./routes/transaction-events.schema";
import { activityParams, activityQuery, activityResponse } from "./routes/activity.schema";
import { projectsResponse } from "./routes/projects.schema";

const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });

/** The OpenAPI document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(): object {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "API key created with the admin CLI (`npm run relay -- keys create`). The operator's ADMIN_TOKEN, where the relay sets one, is accepted too on the GET routes of any project (the console's operator view, docs/console.md); on any other route it is a 403",
  });
  const secured = [{ [bearer.name]: [] }];
  const common = {
    401: json(errorBody, "Missing, unknown or revoked API key"),
    403: json(errorBody, "The API key belongs to another project, lacks the scope this route needs, or is used from an address outside its IP allowlist (docs/policies.md); or ADMIN_TOKEN was sent to a route that changes something (it only reads)"),
    413: json(errorBody, "Request body too large"),
    // Any request with a body, even one the route ignores, is read first.
    415: json(errorBody, "Content-Type charset or Content-Encoding that is not supported (UTF-8 JSON; gzip, deflate or br)"),
    429: json(errorBody, "Rate limit of this API key exceeded; see Retry-After"),
  };
  const badId = json(errorBody, "An id in the path is not a UUID");

  registry.registerPath({
    method: "post",
    path: "/wallet/project/{projectId}/personalSign",
    summary: "Sign a message (EIP-191 personal_sign) with a project wallet",
    security: secured,
    request: { params: projectIdParam, body: { content: { "application/json": { schema: personalSignRequest } } } },
    responses: {
      200: json(personalSignResponse, "Signed; `ethers.verifyMessage(message, signature)` returns signerAddress"),
      400: json(errorBody, "Signature Error: invalid body, or signerAddress is not a wallet of the project, or signatureId reused"),
      500: json(errorBody, "Signing could not complete in time; nothing was stored"),
      ...common,
    },
  });

  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/signatures/{signatureId}",
    summary: "Read a stored signature",
    security: secured,
    request: { params: signatureIdParams },
    responses: { 200: json(signatureRecordResponse, "The stored signature"), 400: badId, 404: json(errorBody, "No such signature in this project"), ...common },
  });

  registry.registerPath({
    method: "post",
    path: "/transact/sendTransaction",
    summary: "Call a contract function from one of the project's wallets",
    description:
      "Accepted means stored: the relay picks a project wallet, simulates, allocates the nonce, prices fees, signs, broadcasts and follows the transaction to CONFIRMED, REVERTED, INVALID or FAILED (PAUSED while the wallet cannot pay), or EXPIRED if the optional expiresAt passes before it is signed. Optional fields beyond the contract: value, fromAddress, gasLimit, maxFeePerGas, expiresAt (docs/transactions.md).",
    security: secured,
    request: { body: { content: { "application/json": { schema: sendTransactionRequest } } } },
    responses: {
      200: json(sendTransactionResponse, "Accepted; `transactionId` is your requestId or a generated one"),
      400: json(errorBody, "Bad Request: a field, the function signature or an argument is wrong (the message names it), or the chain is unknown"),
      409: json(duplicateTransactionBody, "Duplicate Transaction: the requestId was used before; `transactionId` is the first transaction"),
      422: json(errorBody, "Invalid Request ID: requestId is not a UUID"),
      500: json(z.object({}), "Internal Error (no fields)"),
      ...common,
      403: json(errorBody, "The project's policy refuses the transaction (a contract or function not allowed, a value or gas limit reached; the message names the policy, what is left and the command that changes it; nothing was stored), or the API key belongs to another project, lacks the send scope or is used from outside its IP allowlist"),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/project/{projectId}/transactions/{transactionId}",
    summary: "Read a transaction: status, history, attempts",
    security: secured,
    request: { params: transactionParams },
    responses: { 200: json(transactionRecordResponse, "The transaction"), 400: badId, 404: json(errorBody, "No such transaction in this project"), ...common },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/projects",
    summary: "The projects this credential reads: an API key's own; every project for the operator's ADMIN_TOKEN",
    security: secured,
    // No project is named, so none can be another's (no 403 for another project's key).
    responses: { 200: json(projectsResponse, "The projects"), 401: common[401], 413: common[413], 415: common[415], 429: common[429] },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/project/{projectId}/activity",
    summary: "The project's transactions accepted and confirmed, time to confirm, delivery success, in buckets over the last hour or day; and what waits now",
    security: secured,
    request: { params: activityParams, query: activityQuery },
    responses: { 200: json(activityResponse, "The buckets, oldest first"), 400: json(errorBody, "projectId is not a UUID, or window is not hour or day"), ...common },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/project/{projectId}/transactions/{transactionId}/events",
    summary: "A transaction's events (its status changes) and their deliveries to the project's callback registrations",
    security: secured,
    request: { params: transactionParams },
    responses: { 200: json(transactionEventsResponse, "The events, oldest first"), 400: badId, 404: json(errorBody, "No such transaction in this project"), ...common },
  });

  registry.registerPath({
    method: "post",
    path: "/transact/project/{projectId}/transactions/{transactionId}/cancel",
    summary: "Cancel a transaction",
    description:
      "PENDING or PAUSED and never sent: CANCELLED at once. Possibly out there (SUBMITTED, or an attempt signed): a zero-value transfer of the wallet to itself at the same nonce, with higher fees, is sent; " +
      "the transaction ends CANCELLED if it mines, or with its own outcome if the transaction was mined first (its history says which). Asking again answers the same.",
    security: secured,
    request: { params: transactionParams },
    responses: {
      200: json(cancelResponse, "Cancelled, or the cancel is on its way"),
      400: badId,
      404: json(errorBody, "No such transaction in this project"),
      409: json(errorBody, "The transaction is final (CONFIRMED, REVERTED, INVALID, FAILED; a CANCELLED one answers 200 `done`); the message names its status"),
      ...common,
    },
  });

  registry.registerPath({
    method: "post",
    path: "/transact/project/{projectId}/transactions/{transactionId}/speedUp",
    summary: "Speed up a SUBMITTED transaction",
    description: "Replaces the attempt out there at once, at the same nonce, with fees priced for now and at least 12.5 % higher, within the chain's fee caps.",
    security: secured,
    request: { params: transactionParams },
    responses: {
      200: json(speedUpResponse, "The replacement is on its way"),
      400: badId,
      404: json(errorBody, "No such transaction in this project"),
      409: json(errorBody, "The transaction is not SUBMITTED (not sent yet, or final), or is being cancelled; the message says which"),
      ...common,
    },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/project/{projectId}/transactions",
    summary: "List the project's transactions: filtered, newest first, a page at a time",
    description:
      "Contract calls (not top-ups: see /funding), newest first by createdAt then transactionId. Each item is the read's fields without history and attempts (read one transaction for those). Pages follow `nextCursor`: a page never repeats or skips a transaction that existed when the first page was read, and transactions created meanwhile never shift later pages.",
    security: secured,
    request: { params: transactionListParams, query: transactionListQuery },
    responses: {
      200: json(transactionListResponse, "A page of transactions and the cursor of the next"),
      400: json(errorBody, "projectId is not a UUID, or a query parameter is wrong (the message names it), or the cursor was altered or is another project's"),
      ...common,
    },
  });

  registry.registerPath({
    method: "get",
    path: "/transact/project/{projectId}/policy",
    summary: "Read the project's policy: allowed contracts and functions, value and gas limits",
    description:
      "What the project's sends are checked against before anything is stored (docs/policies.md). An operator sets it with `npm run relay -- policies`; a send the policy refuses answers 403 with a message naming the policy and how to change it.",
    security: secured,
    request: { params: projectIdParam },
    responses: {
      200: json(projectPolicyResponse, "The policy, or null when the project has none"),
      400: json(errorBody, "projectId is not a UUID"),
      ...common,
    },
  });

  registry.registerPath({
    method: "get",
    path: "/funding/project/{projectId}/transactions",
    summary: "List the top-ups of the project's wallets (managed gas; Syndicate's funding.getTransactionsByProjects)",
    description:
      "Transfers from the funding wallet an operator set for the project on a chain (`npm run relay -- funding set`), newest first. Statuses: PENDING (not yet sent, or waiting for the funding wallet to be funded), SUBMITTED, CONFIRMED, FAILED.",
    security: secured,
    request: { params: fundingParams, query: fundingQuery },
    responses: {
      200: json(fundingTransactionsResponse, "A page of top-ups and their total"),
      400: json(errorBody, "projectId is not a UUID, or page or limit is not a whole number in range (the message names it)"),
      ...common,
    },
  });

  // Syndicate's transaction reads (docs/syndicate.md, "Transactions and their attempts").
  const syndicateReads = "Syndicate's statuses, derived from the relay's (docs/syndicate.md)";
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/request/{transactionId}",
    summary: "Syndicate: a transaction request with its attempts (SDK wallet.getTransactionRequest)",
    description: syndicateReads,
    security: secured,
    request: { params: requestParams },
    responses: { 200: json(syndicateTransactionResponse, "The request"), 400: badId, 404: json(errorBody, "No such transaction in this project"), ...common },
  });
  const badQuery = json(errorBody, "The projectId is not a UUID, or a query parameter is wrong (the message names it)");
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/requests",
    summary: "Syndicate: the project's transaction requests, newest first, a page at a time (SDK wallet.getTransactionRequestsByProject)",
    description: syndicateReads,
    security: secured,
    request: { params: projectIdParam, query: requestsQuery },
    responses: { 200: json(transactionRequestsResponse, "A page of requests and the total of all pages"), 400: badQuery, ...common },
  });
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/transactions",
    summary: "Syndicate: the project's transaction attempts, newest first, a page at a time (SDK wallet.getTransactionsByProject)",
    description: syndicateReads,
    security: secured,
    request: { params: projectIdParam, query: attemptsQuery },
    responses: { 200: json(transactionAttemptsResponse, "A page of attempts and the total of all pages"), 400: badQuery, ...common },
  });
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/transactionStats",
    summary: "Syndicate: how many of the project's requests are confirmed, submitted, pending and failed (SDK wallet.getProjectTransactionStats)",
    description: syndicateReads,
    security: secured,
    request: { params: projectIdParam },
    responses: { 200: json(transactionStatsResponse, "The counts"), 400: badId, ...common },
  });

  const callbackBase = "/webhook/project/{projectId}";
  registry.registerPath({
    method: "post",
    path: `${callbackBase}/eventCallback`,
    summary: "Register a callback URL for an event type; answers the Standard Webhooks secret (shown this once)",
    security: secured,
    request: { params: projectIdParam, body: { content: { "application/json": { schema: eventCallbackRequest } } } },
    responses: { 200: json(eventCallbackResponse, "Registered"), 400: json(errorBody, "A field is wrong or the URL is not allowed"), ...common },
  });
  registry.registerPath({
    method: "get",
    path: `${callbackBase}/eventCallbacks`,
    summary: "The project's registrations with their recent delivery stats (never the secrets)",
    security: secured,
    request: { params: projectIdParam },
    responses: { 200: json(z.array(eventCallbackListItem), "The registrations"), 400: badId, ...common },
  });
  registry.registerPath({
    method: "delete",
    path: `${callbackBase}/eventCallback/{eventCallbackId}`,
    summary: "Remove a registration",
    security: secured,
    request: { params: eventCallbackParams },
    responses: { 200: json(eventCallbackDeleted, "Removed"), 400: badId, 404: json(errorBody, "No such registration in this project"), ...common },
  });
  registry.registerPath({
    method: "post",
    path: `${callbackBase}/eventCallback/{eventCallbackId}/rotateSecret`,
    summary: "Replace the secret of a registration; answers the new one (shown this once)",
    security: secured,
    request: { params: eventCallbackParams },
    responses: {
      200: json(eventCallbackRotated, "The registration with its new secret"),
      400: badId,
      404: json(errorBody, "No such registration in this project"),
      409: json(errorBody, "The registration is disabled; register a new one"),
      ...common,
    },
  });

  registry.registerPath({
    method: "post",
    path: `${callbackBase}/eventCallback/{eventCallbackId}/delivery/{deliveryId}/redeliver`,
    summary: "Send one event to a registration again: the delivery is due now, on the retry schedule anew",
    security: secured,
    request: { params: deliveryParams },
    responses: {
      200: json(redeliveryResponse, "The delivery is PENDING and due now"),
      400: badId,
      404: json(errorBody, "No such delivery of this registration in this project"),
      409: json(errorBody, "The registration is disabled; its events are not sent again"),
      ...common,
    },
  });

  registerSyndicateSigningPaths(registry, { secured, common, badId });

  registry.registerPath({
    method: "get",
    path: "/health",
    summary: "Liveness: the process answers",
    responses: { 200: json(z.object({ status: z.literal("ok") }), "Up") },
  });
  registry.registerPath({
    method: "get",
    path: "/ready",
    summary: "Readiness: Postgres and Redis answer",
    responses: {
      200: json(z.object({ status: z.string(), checks: z.record(z.string(), z.string()) }), "Ready"),
      503: json(z.object({ status: z.string(), checks: z.record(z.string(), z.string()) }), "A dependency is down"),
    },
  });

  registerWalletPaths(registry, secured, common);
  registerEventWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Relay API",
      version: "1.0.0",
      description: "Send contract calls, sign messages with project wallets, and receive signed events.",
    },
  });
  return withTags(document);
}
