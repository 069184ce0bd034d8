import { randomUUID } from "node:crypto";
import { errorFor, RelayError, RelayNetworkError } from "./errors";
import { backoffDelay, DEFAULT_RETRY, isRetryable, parseRetryAfter, type RetryOptions } from "./retry";
import {
  FINAL_STATUSES,
  type AttemptsQuery,
  type CancelResponse,
  type CreateWalletResponse,
  type CustodyBackend,
  type EventCallback,
  type EventCallbackDeleted,
  type EventCallbackListItem,
  type EventCallbackRequest,
  type EventCallbackRotated,
  type FundingTransactions,
  type ProjectPolicy,
  type ListTransactionsQuery,
  type MessageSignature,
  type PageQuery,
  type PersonalSignRequest,
  type PersonalSignResponse,
  type ProjectActivity,
  type Projects,
  type Redelivery,
  type TransactionEvents,
  type ReadContractRequest,
  type RequestsQuery,
  type RetireWalletResponse,
  type SendTransactionRequest,
  type SendTransactionResponse,
  type SignatureRecord,
  type SignTypedDataRequest,
  type SignTypedDataResponse,
  type SpeedUpResponse,
  type SyndicateTransactionAttempts,
  type SyndicateTransactionRequest,
  type SyndicateTransactionRequests,
  type TransactionList,
  type TransactionRecord,
  type TransactionStats,
  type TypedDataSignature,
  type Wallet,
  type WalletWithData,
} from "./types";

export interface RelayClientOptions {
  /** The relay's address, e.g. http://localhost:3000. */
  baseUrl: string;
  /** An API key of the project (sent as `Authorization: Bearer …`). */
  apiKey: string;
  /** The API key's project: the default of every call's `projectId`. */
  projectId?: string;
  retry?: RetryOptions;
  /** Longest wait for one answer (default 30 s); past it the attempt is a network error. */
  timeoutMs?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** How the client waits between attempts (default setTimeout; tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

/** Options of one call. */
export interface CallOptions {
  /** Another project than the client's (the API key must belong to it). */
  projectId?: string;
  signal?: AbortSignal;
}

type Query = Record<string, string | number | boolean | Date | readonly (string | number)[] | undefined | null>;

interface Call<T> {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  /** May be sent again after a 503 or no answer (a 429 is always retried: nothing was done). */
  idempotent: boolean;
  /** An error on a retry that means the first attempt landed (a 409 on a reused id of ours): the answer to give instead. */
  afterRetry?: (error: RelayError) => T | undefined;
  signal?: AbortSignal | undefined;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The relay's HTTP API, typed: our routes and the Syndicate-compatible ones. Every failure is a
 * RelayError subclass (errors.ts). 429s are retried for every call (the rate limit refuses before
 * any work); 503s and lost answers only for calls that are safe to repeat: reads, and
 * sendTransaction / personalSign / signTypedData, which always carry an id (the caller's, or one
 * generated before the first attempt), so that a repeat is recognised by the relay.
 */
export class RelayClient {
  private readonly baseUrl: string;
  private readonly retry: Required<RetryOptions>;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly timeoutMs: number;

  constructor(private readonly options: RelayClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    if (!options.apiKey) throw new TypeError("apiKey is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? sleepFor;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  // ---- transactions ----

  /**
   * POST /transact/sendTransaction. Without a `requestId` one is generated first, so a retry
   * after a lost answer cannot send the call twice: a 409 on a retry means the first attempt was
   * taken, and its transactionId is returned.
   */
  async sendTransaction(request: Omit<SendTransactionRequest, "projectId"> & { projectId?: string }, options: Omit<CallOptions, "projectId"> = {}): Promise<SendTransactionResponse> {
    const requestId = request.requestId ?? randomUUID();
    const body = { ...request, projectId: this.project(request.projectId), requestId };
    return this.send({
      method: "POST",
      path: "/transact/sendTransaction",
      body,
      idempotent: true,
      afterRetry: (error) => (error.status === 409 ? { transactionId: requestId } : undefined),
      signal: options.signal,
    });
  }

  /** GET /transact/project/{projectId}/transactions/{transactionId}: status, history, attempts, receipt. */
  async getTransaction(transactionId: string, options: CallOptions = {}): Promise<TransactionRecord> {
    return this.read(`/transact/project/${this.project(options.projectId)}/transactions/${enc(transactionId)}`, undefined, options);
  }

  /** GET /transact/project/{projectId}/transactions: newest first, by cursor. */
  async listTransactions(query: ListTransactionsQuery = {}, options: CallOptions = {}): Promise<TransactionList> {
    const { status, ...rest } = query;
    return this.read(`/transact/project/${this.project(options.projectId)}/transactions`, { ...rest, status: Array.isArray(status) ? status.join(",") : status }, options);
  }

  /** GET /transact/projects: the project this key belongs to (needs no project id). */
  async listProjects(options: Omit<CallOptions, "projectId"> = {}): Promise<Projects> {
    return this.read("/transact/projects", undefined, options);
  }

  /** GET …/transactions/{transactionId}/events: the events it produced and where each was delivered. */
  async getTransactionEvents(transactionId: string, options: CallOptions = {}): Promise<TransactionEvents> {
    return this.read(`/transact/project/${this.project(options.projectId)}/transactions/${enc(transactionId)}/events`, undefined, options);
  }

  /** GET /transact/project/{projectId}/activity: accepted, confirmed, time to confirm and delivery attempts per bucket, and the queue now. */
  async getActivity(query: { window?: "hour" | "day" } = {}, options: CallOptions = {}): Promise<ProjectActivity> {
    return this.read(`/transact/project/${this.project(options.projectId)}/activity`, query, options);
  }

  /** POST …/transactions/{transactionId}/cancel. */
  async cancelTransaction(transactionId: string, options: CallOptions = {}): Promise<CancelResponse> {
    return this.send({ method: "POST", path: `/transact/project/${this.project(options.projectId)}/transactions/${enc(transactionId)}/cancel`, idempotent: false, signal: options.signal });
  }

  /** POST …/transactions/{transactionId}/speedUp. Not repeated on a 503: each speed-up may send a replacement. */
  async speedUpTransaction(transactionId: string, options: CallOptions = {}): Promise<SpeedUpResponse> {
    return this.send({ method: "POST", path: `/transact/project/${this.project(options.projectId)}/transactions/${enc(transactionId)}/speedUp`, idempotent: false, signal: options.signal });
  }

  /** Reads the transaction every `intervalMs` (default 1 s) until its status is final; throws after `timeoutMs` (default 5 min). */
  async waitForTransaction(transactionId: string, options: CallOptions & { intervalMs?: number; timeoutMs?: number } = {}): Promise<TransactionRecord> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const record = await this.getTransaction(transactionId, options);
      if (FINAL_STATUSES.includes(record.status)) return record;
      if (Date.now() >= deadline) throw new Error(`transaction ${transactionId} is still ${record.status} after ${options.timeoutMs ?? 300_000} ms`);
      await this.sleep(options.intervalMs ?? 1000);
    }
  }

  // ---- personal signatures ----

  /** POST /wallet/project/{projectId}/personalSign. A signatureId is generated when absent: a retry returns the stored signature. */
  async personalSign(request: PersonalSignRequest, options: CallOptions = {}): Promise<PersonalSignResponse> {
    const body = { ...request, signatureId: request.signatureId ?? randomUUID() };
    return this.send({ method: "POST", path: `/wallet/project/${this.project(options.projectId)}/personalSign`, body, idempotent: true, signal: options.signal });
  }

  /** GET /wallet/project/{projectId}/signatures/{signatureId}: a personal signature's record, PENDING or SIGNED. */
  async getSignature(signatureId: string, options: CallOptions = {}): Promise<SignatureRecord> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/signatures/${enc(signatureId)}`, undefined, options);
  }

  // ---- event callbacks (webhooks) ----

  /** POST /webhook/project/{projectId}/eventCallback; the answer's `secret` is shown only here. */
  async createEventCallback(request: EventCallbackRequest, options: CallOptions = {}): Promise<EventCallback> {
    return this.send({ method: "POST", path: `/webhook/project/${this.project(options.projectId)}/eventCallback`, body: request, idempotent: false, signal: options.signal });
  }

  /** GET /webhook/project/{projectId}/eventCallbacks, with each one's delivery stats. */
  async listEventCallbacks(options: CallOptions = {}): Promise<EventCallbackListItem[]> {
    return this.read(`/webhook/project/${this.project(options.projectId)}/eventCallbacks`, undefined, options);
  }

  /** DELETE /webhook/project/{projectId}/eventCallback/{id}. A 404 on a retry means the first attempt deleted it. */
  async deleteEventCallback(eventCallbackId: string, options: CallOptions = {}): Promise<EventCallbackDeleted> {
    return this.send({
      method: "DELETE",
      path: `/webhook/project/${this.project(options.projectId)}/eventCallback/${enc(eventCallbackId)}`,
      idempotent: true,
      afterRetry: (error) => (error.status === 404 ? { id: eventCallbackId, deleted: true } : undefined),
      signal: options.signal,
    });
  }

  /** POST …/eventCallback/{id}/rotateSecret: a new secret; the old one still signs until previousSecretExpiresAt. */
  async rotateEventCallbackSecret(eventCallbackId: string, options: CallOptions = {}): Promise<EventCallbackRotated> {
    return this.send({ method: "POST", path: `/webhook/project/${this.project(options.projectId)}/eventCallback/${enc(eventCallbackId)}/rotateSecret`, idempotent: false, signal: options.signal });
  }

  /** POST …/eventCallback/{id}/delivery/{deliveryId}/redeliver: that event to that registration again, now. Not repeated on a 503. */
  async redeliverEvent(eventCallbackId: string, deliveryId: string, options: CallOptions = {}): Promise<Redelivery> {
    return this.send({
      method: "POST",
      path: `/webhook/project/${this.project(options.projectId)}/eventCallback/${enc(eventCallbackId)}/delivery/${enc(deliveryId)}/redeliver`,
      idempotent: false,
      signal: options.signal,
    });
  }

  // ---- Syndicate-compatible routes ----

  /** GET /wallet/project/{projectId}/request/{transactionId} (Syndicate's transaction request). */
  async getRequest(transactionId: string, options: CallOptions = {}): Promise<SyndicateTransactionRequest> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/request/${enc(transactionId)}`, undefined, options);
  }

  /** GET /wallet/project/{projectId}/requests. */
  async listRequests(query: RequestsQuery = {}, options: CallOptions = {}): Promise<SyndicateTransactionRequests> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/requests`, { ...query }, options);
  }

  /** GET /wallet/project/{projectId}/transactions (Syndicate's attempts). */
  async listAttempts(query: AttemptsQuery = {}, options: CallOptions = {}): Promise<SyndicateTransactionAttempts> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/transactions`, { ...query }, options);
  }

  /** GET /wallet/project/{projectId}/transactionStats. */
  async getTransactionStats(options: CallOptions = {}): Promise<TransactionStats> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/transactionStats`, undefined, options);
  }

  /** GET /wallet/project/{projectId}/wallets; `withData` adds balance and txCount. */
  listWallets(query: { withData: true }, options?: CallOptions): Promise<WalletWithData[]>;
  listWallets(query?: { withData?: false }, options?: CallOptions): Promise<Wallet[]>;
  async listWallets(query: { withData?: boolean } = {}, options: CallOptions = {}): Promise<Wallet[] | WalletWithData[]> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/wallets`, { withData: query.withData }, options);
  }

  /**
   * POST /wallet/create. Not repeated on a 503: a repeat could create a second wallet. `backend`:
   * where the key is made and kept (LOCAL by default; HSM and KMS as the relay is configured).
   */
  async createWallet(request: { chainId: number; type?: "BROADCAST" | null; backend?: CustodyBackend | null }, options: CallOptions = {}): Promise<CreateWalletResponse> {
    return this.send({ method: "POST", path: "/wallet/create", body: { ...request, projectId: this.project(options.projectId) }, idempotent: false, signal: options.signal });
  }

  /** POST /wallet/toggleIsActive: flips the wallet between active and inactive (so never repeated on a 503). */
  async toggleWalletIsActive(walletAddress: string, options: CallOptions = {}): Promise<Wallet> {
    return this.send({ method: "POST", path: "/wallet/toggleIsActive", body: { projectId: this.project(options.projectId), walletAddress }, idempotent: false, signal: options.signal });
  }

  /** POST /wallet/retire (retiring a retired wallet answers the same). */
  async retireWallet(walletAddress: string, options: CallOptions = {}): Promise<RetireWalletResponse> {
    return this.send({ method: "POST", path: "/wallet/retire", body: { projectId: this.project(options.projectId), walletAddress }, idempotent: true, signal: options.signal });
  }

  /** GET /funding/project/{projectId}/transactions: top-ups of the project's wallets. */
  async listFundingTransactions(query: PageQuery = {}, options: CallOptions = {}): Promise<FundingTransactions> {
    return this.read(`/funding/project/${this.project(options.projectId)}/transactions`, { ...query }, options);
  }

  /** GET /transact/project/{projectId}/policy: what the project's sends are checked against (set by an operator). */
  async getPolicy(options: CallOptions = {}): Promise<ProjectPolicy> {
    return this.read(`/transact/project/${this.project(options.projectId)}/policy`, {}, options);
  }

  /** POST /wallet/project/{projectId}/signTypedData (EIP-712). A signatureId is generated when absent. */
  async signTypedData(request: SignTypedDataRequest, options: CallOptions = {}): Promise<SignTypedDataResponse> {
    const body = { ...request, signatureId: request.signatureId ?? randomUUID() };
    return this.send({ method: "POST", path: `/wallet/project/${this.project(options.projectId)}/signTypedData`, body, idempotent: true, signal: options.signal });
  }

  /** GET /wallet/project/{projectId}/signature/{signatureId}: a typed-data signature. */
  async getTypedDataSignature(signatureId: string, options: CallOptions = {}): Promise<TypedDataSignature> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/signature/${enc(signatureId)}`, undefined, options);
  }

  /** GET /wallet/project/{projectId}/signatures: typed-data signatures, a page. */
  async listTypedDataSignatures(query: PageQuery = {}, options: CallOptions = {}): Promise<TypedDataSignature[]> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/signatures`, { ...query }, options);
  }

  /** GET /wallet/project/{projectId}/personalSignature/{signatureId} (Syndicate's MessageSignature). */
  async getPersonalSignature(signatureId: string, options: CallOptions = {}): Promise<MessageSignature> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/personalSignature/${enc(signatureId)}`, undefined, options);
  }

  /** GET /wallet/project/{projectId}/personalSignatures: personal signatures, a page. */
  async listPersonalSignatures(query: PageQuery = {}, options: CallOptions = {}): Promise<MessageSignature[]> {
    return this.read(`/wallet/project/${this.project(options.projectId)}/personalSignatures`, { ...query }, options);
  }

  /** POST /transact/call: a view call, decoded (integers as decimal strings). A read: retried. */
  async call<T = unknown>(request: ReadContractRequest, options: Omit<CallOptions, "projectId"> = {}): Promise<T> {
    return this.send({ method: "POST", path: "/transact/call", body: request, idempotent: true, signal: options.signal });
  }

  // ---- plumbing ----

  private project(projectId: string | undefined): string {
    const id = projectId ?? this.options.projectId;
    if (!id) throw new TypeError("projectId is required: give it to the RelayClient or to the call");
    return enc(id);
  }

  private read<T>(path: string, query: Query | undefined, options: CallOptions): Promise<T> {
    return this.send({ method: "GET", path, query, idempotent: true, signal: options.signal });
  }

  private async send<T>(call: Call<T>): Promise<T> {
    const started = Date.now();
    const label = `${call.method} ${call.path}`;
    // Whether an earlier attempt may have been carried out (no answer, or a 503) rather than
    // refused before any work (429): only then does a 409 or 404 mean "that attempt landed".
    let earlierMayHaveLanded = false;
    for (let attempt = 1; ; attempt++) {
      let failure: RelayError;
      let retryAfterMs: number | undefined;
      try {
        const response = await this.once(call);
        const text = await response.text();
        const body = parseJson(text);
        if (response.ok) return body as T;
        retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        failure = errorFor(response.status, body, label, retryAfterMs);
      } catch (error) {
        if (call.signal?.aborted) throw error;
        failure = new RelayNetworkError(`${label}: no answer from the relay (${(error as Error).message})`, label, { cause: error });
      }
      if (earlierMayHaveLanded && call.afterRetry) {
        const settled = call.afterRetry(failure);
        if (settled !== undefined) return settled;
      }
      if (failure.status !== 429) earlierMayHaveLanded = true;
      if (!isRetryable(failure.status, call.idempotent) || attempt >= this.retry.maxAttempts) throw failure;
      const delay = backoffDelay(attempt, this.retry, retryAfterMs);
      if (Date.now() - started + delay > this.retry.maxElapsedMs) throw failure;
      await this.sleep(delay);
    }
  }

  private once(call: Call<unknown>): Promise<Response> {
    const url = new URL(this.baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: "application/json" };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    return this.fetch(url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
    });
  }
}

const enc = (segment: string) => encodeURIComponent(segment);

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
