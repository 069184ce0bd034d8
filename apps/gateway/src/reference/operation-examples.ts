import { EXAMPLE_CALLBACK_URL, UNKNOWN_ID, UNKNOWN_WALLET, type ReferenceExamples } from "./reference-examples";

/** A request as the reference shows it: path and query parameters by name, and the JSON body. */
export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

/** One operation's examples: the request, the same request with one field wrong, and error messages. */
export interface OperationExamples {
  request: ExampleRequest;
  /** Answers 400 with exactly `message`. */
  badRequest?: ExampleRequest & { summary: string; message: string };
  /** The request naming a record no install has, and the message it answers (404). */
  notFound?: ExampleRequest & { message: string };
  /** Bodies of the other errors the operation documents (409, 422, 500, 503), by status. */
  errors?: Record<number, unknown>;
  /** The status the request answers on the quick start when it is not a 2xx, and why (the description says so). */
  answers?: { status: number; why: string };
}

const ORDER_CALL = "function setOrder((uint256 id, address owner, uint8[] flags) order)";
const LAST_ORDER = "function lastOrder() view returns ((uint256 id, address owner, uint8[] flags) order)";
const NOT_UUID = "not-a-uuid";
const wholeLimit = "limit must be a whole number from 1 to 100";
const integerLimit = "limit must be an integer from 1 to 100";
const unknownChain = "chainId 999999 is not configured on this relay; an operator adds it with `npm run relay -- chains add`";

/** Paging the Syndicate reads share: the first page of ten. */
const firstPage = { page: 0, limit: 10 };

/**
 * Every operation's examples, keyed `<method> <path>` as in the document, built from one install's
 * records. The bad requests and messages are the gateway's own: the quick start's test sends every
 * one of them and compares the answers.
 */
export function operationExamples(x: ReferenceExamples, limits: { signTimeoutMs: number }): Record<string, OperationExamples> {
  const project = { projectId: x.projectId };
  const tx = (transactionId: string) => ({ ...project, transactionId });
  const noTransaction = { params: tx(UNKNOWN_ID), message: `No transaction ${UNKNOWN_ID} in project ${x.projectId}` };
  const noSignature = (what: string) => ({ params: { ...project, signatureId: UNKNOWN_ID }, message: `No ${what} ${UNKNOWN_ID} in project ${x.projectId}` });
  const noDelivery = {
    params: { ...project, eventCallbackId: x.rotateEventCallbackId, deliveryId: UNKNOWN_ID },
    message: `No delivery ${UNKNOWN_ID} of event callback ${x.rotateEventCallbackId} in project ${x.projectId}`,
  };
  const noCallback = { params: { ...project, eventCallbackId: UNKNOWN_ID }, message: `No event callback ${UNKNOWN_ID} in project ${x.projectId}` };
  const noWalletThere = { body: { ...project, walletAddress: UNKNOWN_WALLET }, message: `No wallet ${UNKNOWN_WALLET} in project ${x.projectId}` };
  const badTransactionId = { summary: "transactionId is not a UUID", params: tx(NOT_UUID), message: "transactionId in the path must be a UUID" };
  const badPage = (limitMessage: string) => ({ summary: "limit out of range", params: project, query: { ...firstPage, limit: 0 }, message: limitMessage });
  const badProjectId = { summary: "projectId is not a UUID", params: { projectId: NOT_UUID }, message: "projectId in the path must be a UUID" };
  const orderCall = { functionSignature: ORDER_CALL, args: { order: { id: "1", owner: x.walletAddress, flags: [1, 2, 3] } } };
  const typedData = {
    signerAddress: x.walletAddress,
    domain: { name: "Relay demo", version: "1", chainId: x.chainId, verifyingContract: x.contractAddress },
    types: { Order: [{ name: "id", type: "uint256" }, { name: "owner", type: "address" }] },
    primaryType: "Order",
    message: { id: "1", owner: x.walletAddress },
  };
  const signTimeout = { message: `Signing did not complete within ${limits.signTimeoutMs} ms; nothing was stored. Retry with the same signatureId.` };
  const spareWallet = { ...project, walletAddress: x.spareWalletAddress };
  const noWallet = (body: object) => ({ summary: "walletAddress is not an address", body: { ...body, walletAddress: "0x1234" }, message: "walletAddress must be a 0x-prefixed 20-byte hex address" });

  return {
    "get /ready": {
      request: {},
      errors: { 503: { status: "not ready", checks: { postgres: "unavailable", redis: "ok" } } },
    },
    "post /wallet/project/{projectId}/personalSign": {
      request: { params: project, body: { signerAddress: x.walletAddress, message: "hello" } },
      badRequest: { summary: "signerAddress is not an address", params: project, body: { signerAddress: "0x1234", message: "hello" }, message: "signerAddress must be a 0x-prefixed 20-byte hex address" },
      errors: { 500: signTimeout },
    },
    "get /wallet/project/{projectId}/signatures/{signatureId}": {
      request: { params: { ...project, signatureId: x.personalSignatureId } },
      badRequest: { summary: "signatureId is not a UUID", params: { ...project, signatureId: NOT_UUID }, message: "signatureId in the path must be a UUID" },
      notFound: noSignature("signature"),
    },
    "post /transact/sendTransaction": {
      // fromAddress names the funded demo wallet: the wallet/create example adds unfunded ones the relay could otherwise pick.
      request: { body: { ...project, chainId: x.chainId, contractAddress: x.contractAddress, fromAddress: x.walletAddress, ...orderCall } },
      badRequest: { summary: "an argument is wrong", body: { ...project, chainId: x.chainId, contractAddress: x.contractAddress, ...orderCall, args: { order: { id: "1", owner: "0x1234", flags: [1, 2, 3] } } }, message: 'args.order.owner must be an address (0x and 40 hex digits); got "0x1234"' },
      errors: {
        409: { message: `requestId ${x.confirmedTransactionId} was already used for a transaction of this project`, transactionId: x.confirmedTransactionId },
        422: { message: "requestId must be a UUID (e.g. 123e4567-e89b-42d3-a456-426614174000), or omitted" },
        500: {},
      },
    },
    "get /transact/project/{projectId}/transactions/{transactionId}": {
      request: { params: tx(x.confirmedTransactionId) },
      badRequest: badTransactionId,
      notFound: noTransaction,
    },
    "post /transact/project/{projectId}/transactions/{transactionId}/cancel": {
      request: { params: tx(x.cancellableTransactionId) },
      badRequest: badTransactionId,
      notFound: noTransaction,
      errors: { 409: { message: `Transaction ${x.confirmedTransactionId} is CONFIRMED: a final transaction cannot be cancelled` } },
    },
    "post /transact/project/{projectId}/transactions/{transactionId}/speedUp": {
      request: { params: tx(x.confirmedTransactionId) },
      badRequest: badTransactionId,
      notFound: noTransaction,
      errors: { 409: { message: `Transaction ${x.confirmedTransactionId} is CONFIRMED: a final transaction cannot be sped up` } },
      answers: {
        status: 409,
        why: "The example names a CONFIRMED transaction and answers 409: the quick start's chain mines each transaction as it arrives, so none stays SUBMITTED long enough to be sped up.",
      },
    },
    "get /transact/projects": { request: {} },
    "get /transact/project/{projectId}/activity": {
      request: { params: project, query: { window: "hour" } },
      badRequest: { summary: "window is not hour or day", params: project, query: { window: "week" }, message: "window must be hour or day" },
    },
    "get /transact/project/{projectId}/transactions/{transactionId}/events": {
      request: { params: tx(x.confirmedTransactionId) },
      badRequest: badTransactionId,
      notFound: noTransaction,
    },
    "get /transact/project/{projectId}/transactions": {
      request: { params: project, query: { status: "CONFIRMED", chainId: x.chainId, limit: 10 } },
      badRequest: { summary: "status is not a status", params: project, query: { status: "DONE" }, message: "status must be one or several of PENDING, SUBMITTED, CONFIRMED, REVERTED, INVALID, PAUSED, FAILED, CANCELLED, EXPIRED" },
    },
    "get /transact/project/{projectId}/policy": { request: { params: project }, badRequest: badProjectId },
    "get /funding/project/{projectId}/transactions": { request: { params: project, query: firstPage }, badRequest: badPage(wholeLimit) },
    "get /wallet/project/{projectId}/request/{transactionId}": {
      request: { params: tx(x.confirmedTransactionId) },
      badRequest: badTransactionId,
      notFound: noTransaction,
    },
    "get /wallet/project/{projectId}/requests": { request: { params: project, query: firstPage }, badRequest: badPage(integerLimit) },
    "get /wallet/project/{projectId}/transactions": { request: { params: project, query: firstPage }, badRequest: badPage(integerLimit) },
    "get /wallet/project/{projectId}/transactionStats": { request: { params: project }, badRequest: badProjectId },
    "post /webhook/project/{projectId}/eventCallback": {
      request: { params: project, body: { callbackURL: EXAMPLE_CALLBACK_URL, eventType: "WalletBalanceLow" } },
      badRequest: { summary: "eventType is not an event type", params: project, body: { callbackURL: EXAMPLE_CALLBACK_URL, eventType: "BalanceLow" }, message: "eventType must be one of TransactionStatusChange, WalletBalanceLow" },
    },
    "get /webhook/project/{projectId}/eventCallbacks": { request: { params: project }, badRequest: badProjectId },
    "delete /webhook/project/{projectId}/eventCallback/{eventCallbackId}": {
      request: { params: { ...project, eventCallbackId: x.deleteEventCallbackId } },
      badRequest: { summary: "eventCallbackId is not a UUID", params: { ...project, eventCallbackId: NOT_UUID }, message: "eventCallbackId in the path must be a UUID" },
      notFound: noCallback,
    },
    "post /webhook/project/{projectId}/eventCallback/{eventCallbackId}/rotateSecret": {
      request: { params: { ...project, eventCallbackId: x.rotateEventCallbackId } },
      badRequest: { summary: "eventCallbackId is not a UUID", params: { ...project, eventCallbackId: NOT_UUID }, message: "eventCallbackId in the path must be a UUID" },
      notFound: noCallback,
      errors: { 409: { message: `Event callback ${x.rotateEventCallbackId} is disabled (the receiver answered 410 Gone); register a new one` } },
    },
    "post /webhook/project/{projectId}/eventCallback/{eventCallbackId}/delivery/{deliveryId}/redeliver": {
      request: { params: { ...project, eventCallbackId: x.rotateEventCallbackId, deliveryId: UNKNOWN_ID } },
      badRequest: { summary: "deliveryId is not a UUID", params: { ...project, eventCallbackId: x.rotateEventCallbackId, deliveryId: NOT_UUID }, message: "deliveryId in the path must be a UUID" },
      notFound: noDelivery,
      errors: { 409: { message: `Event callback ${x.rotateEventCallbackId} is disabled: its events are not sent again; register a new one` } },
      answers: {
        status: 404,
        why: "The example answers 404: the quick start's registrations are for WalletBalanceLow, which its funded wallet never sends, so they have no delivery to name. A delivery's id is `data.deliveryId` of a stats entry of GET …/eventCallbacks.",
      },
    },
    "post /wallet/project/{projectId}/signTypedData": {
      request: { params: project, body: typedData },
      badRequest: { summary: "primaryType names no type", params: project, body: { ...typedData, primaryType: "Mail" }, message: 'primaryType "Mail" is not one of types (Order)' },
      errors: { 500: signTimeout },
    },
    "get /wallet/project/{projectId}/signature/{signatureId}": {
      request: { params: { ...project, signatureId: x.typedDataSignatureId } },
      badRequest: { summary: "signatureId is not a UUID", params: { ...project, signatureId: NOT_UUID }, message: "signatureId in the path must be a UUID" },
      notFound: noSignature("typed-data signature"),
    },
    "get /wallet/project/{projectId}/signatures": { request: { params: project, query: firstPage }, badRequest: badPage(wholeLimit) },
    "get /wallet/project/{projectId}/personalSignature/{signatureId}": {
      request: { params: { ...project, signatureId: x.personalSignatureId } },
      badRequest: { summary: "signatureId is not a UUID", params: { ...project, signatureId: NOT_UUID }, message: "signatureId in the path must be a UUID" },
      notFound: noSignature("personal signature"),
    },
    "get /wallet/project/{projectId}/personalSignatures": { request: { params: project, query: firstPage }, badRequest: badPage(wholeLimit) },
    "post /transact/call": {
      request: { body: { chainId: x.chainId, contractAddress: x.contractAddress, functionSignature: LAST_ORDER } },
      badRequest: { summary: "the chain is not configured", body: { chainId: 999_999, contractAddress: x.contractAddress, functionSignature: LAST_ORDER }, message: unknownChain },
      errors: { 503: { message: `the call to chain ${x.chainId} timed out: none of its RPC endpoints answered in time; retry later` } },
    },
    "get /wallet/project/{projectId}/wallets": {
      request: { params: project, query: { withData: true } },
      badRequest: { summary: "withData is not true or false", params: project, query: { withData: "yes" }, message: "withData must be true or false" },
    },
    "post /wallet/create": {
      request: { body: { ...project, chainId: x.chainId } },
      badRequest: { summary: "the chain is not configured", body: { ...project, chainId: 999_999 }, message: unknownChain },
      errors: {
        500: {
          message: `Wallet creation did not complete within ${limits.signTimeoutMs} ms. If the signing worker finished it after all, the wallet (id ${UNKNOWN_ID}) is listed by GET /wallet/project/${x.projectId}/wallets; otherwise nothing was stored.`,
          projectId: x.projectId,
        },
      },
    },
    "post /wallet/toggleIsActive": {
      request: { body: spareWallet },
      badRequest: noWallet(project),
      notFound: noWalletThere,
    },
    "post /wallet/retire": {
      request: { body: spareWallet },
      badRequest: noWallet(project),
      notFound: noWalletThere,
    },
  };
}
