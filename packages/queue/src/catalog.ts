import { z } from "zod";
import { CUSTODY_BACKENDS, type CustodyBackendName } from "@relay/core";
import type { JobsOptions } from "bullmq";
import { CAPPED_EXPONENTIAL, UNTIL_FINISHED_ATTEMPTS } from "./retry-backoff";

/**
 * `reqId`: the id of the HTTP request that created a job (the gateway's `x-request-id`, not the
 * sendTransaction body's `requestId`), carried so the job's log lines name the request
 * (docs/metrics.md, "Logs"). An id, not a secret; optional, since scheduled and reconciled jobs
 * have no request.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const reqIdField = z.string().regex(REQUEST_ID_PATTERN).optional();

/** Most personal-sign requests one signing job carries. */
export const MAX_SIGN_BATCH = 100;

/**
 * Every scheduled job's: one attempt, since the next run comes on schedule anyway; the last 100
 * finished and failed jobs are kept to look at.
 */
const SCHEDULED_JOB_OPTIONS = { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } as const satisfies JobsOptions;

/**
 * The one catalog of jobs: each entry names its queue, the zod schema of its payload (ids only,
 * versioned, never a secret), its retry policy and how its job id is built from domain ids so
 * that enqueueing the same work twice yields one job.
 */
export const jobCatalog = {
  personalSign: {
    queue: "personal-sign",
    // v3: one job signs a batch of stored requests (the gateway groups the requests that arrive
    // while its previous enqueue is out; docs/architecture.md), each named by its project and
    // signatureId (a signatureId is unique per project only), and answers their results in the
    // order of `signatures`. `batch` is new per job, so a request retried after a time-out gets a
    // fresh job, never the given-up one, and requests of two projects under one signatureId never
    // share a job id, nor the result waiter's key, which is the job id. v2 (a batch without
    // projects, answered by signatureId) and v1 (one request per job, `attempt` new per request)
    // are what gateways of earlier versions send: the worker still signs them, so a rolling deploy
    // loses nothing.
    payload: z.discriminatedUnion("v", [
      z.object({ v: z.literal(1), signatureId: z.uuid(), attempt: z.string().regex(/^[0-9a-f]{8,32}$/), reqId: reqIdField }),
      z.object({
        v: z.literal(2),
        batch: z.string().regex(/^[0-9a-f]{16,32}$/),
        signatures: z.array(z.object({ signatureId: z.uuid(), reqId: reqIdField })).min(1).max(MAX_SIGN_BATCH),
      }),
      z.object({
        v: z.literal(3),
        batch: z.string().regex(/^[0-9a-f]{16,32}$/),
        // signWithinMs: how long after its insert the request may still be signed; its gateway
        // has answered by then (a 500 on a time-out must not leave a signature behind).
        // kind: what the gateway stored (PERSONAL when absent, as gateways before typed data send);
        // a record of the other kind under the id is not the one asked for and is not signed.
        signatures: z
          .array(
            z.object({
              projectId: z.uuid(),
              signatureId: z.uuid(),
              reqId: reqIdField,
              signWithinMs: z.number().int().positive().optional(),
              kind: z.enum(["PERSONAL", "TYPED_DATA"]).optional(),
            }),
          )
          .min(1)
          .max(MAX_SIGN_BATCH),
      }),
    ]),
    jobId: (p: { v: 1; signatureId: string; attempt: string } | { v: 2 | 3; batch: string }) =>
      p.v === 1 ? `${p.signatureId}-${p.attempt}` : `sign-${p.batch}`,
    options: {
      // The gateway waits only a few seconds; quick retries fit inside that wait.
      attempts: 3,
      backoff: { type: "exponential", delay: 50 },
      // The result travels in the completion event and the signatures are in Postgres: nothing
      // needs the finished job, so it is deleted at once.
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600 },
    },
  },
  /**
   * Creates a wallet for POST /wallet/create: the signing worker, which holds the key-encryption
   * key, generates the key, seals it and inserts the record in one step (docs/architecture.md).
   * `walletId` is chosen by the gateway and is the record's id, so a retried or duplicated job
   * answers the wallet it made instead of making a second one. The answer is the wallet's id and
   * address only: no key material travels through Redis, either way.
   */
  createWallet: {
    queue: "wallet-create",
    payload: z.object({
      v: z.literal(1),
      projectId: z.uuid(),
      walletId: z.uuid(),
      walletType: z.enum(["BROADCAST", "SIGNING", "CLUSTER_MANAGER"]),
      /** Where the worker makes the key (docs/custody.md); the name only, the worker holds the backend's settings. */
      backend: z.enum(CUSTODY_BACKENDS).default("LOCAL"),
      reqId: reqIdField,
      /** The API key that asked, named by the audit log's entry (an id, never the key's secret); absent from older gateways. */
      keyId: z.uuid().optional(),
    }),
    jobId: (p: { walletId: string }) => `wallet-${p.walletId}`,
    options: {
      // The gateway waits a few seconds, as for a signature; a retry finds the wallet by its id.
      attempts: 3,
      backoff: { type: "exponential", delay: 50 },
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600 },
    },
  },
  /**
   * Removes personal-sign requests left PENDING by a gateway that died while waiting (its own
   * clean-up never ran). Scheduled every minute; any signing-worker replica may run it.
   */
  sweepSignatures: {
    queue: "signature-sweep",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "sweep",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /**
   * Takes one transaction through its lifecycle. The same job lives as long as the transaction is
   * unfinished: each run does the next step and, if the transaction waits for the chain, puts
   * itself back as delayed (`runAgainIn`). Retries are for transient faults (RPC, database).
   */
  processTransaction: {
    queue: "transaction",
    payload: z.object({ v: z.literal(1), projectId: z.uuid(), transactionId: z.uuid(), reqId: reqIdField }),
    jobId: (p: { projectId: string; transactionId: string }) => `tx-${p.projectId}-${p.transactionId}`,
    // A transient fault is retried after at most 30 s however old the job (retry-backoff.ts); a
    // transaction's job only ends when the transaction is final.
    options: {
      attempts: UNTIL_FINISHED_ATTEMPTS,
      backoff: { type: CAPPED_EXPONENTIAL, delay: 1000 },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
    // A job that comes back after a stall (its replica died, its lock lapsed) runs again however
    // often that happened in its life: every step is safe to repeat. BullMQ's default, 1, failed it
    // unrun at its second stall, with no log line, until the reconciler found it.
    maxStalledCount: UNTIL_FINISHED_ATTEMPTS,
  },
  /**
   * Follows one chain's blocks for every transaction in flight on it (apps/tx-worker
   * block-follower.ts). One job per chain, by its id, so one replica at a time runs it; it lives
   * for ever, each run putting itself back for a fraction of a block. Transactions' jobs revive it
   * when it is lost.
   */
  followBlocks: {
    queue: "block-follow",
    payload: z.object({ v: z.literal(1), chainId: z.string().regex(/^[0-9]{1,30}$/) }),
    jobId: (p: { chainId: string }) => `follow-${p.chainId}`,
    options: {
      attempts: UNTIL_FINISHED_ATTEMPTS,
      backoff: { type: CAPPED_EXPONENTIAL, delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600 },
    },
    maxStalledCount: UNTIL_FINISHED_ATTEMPTS,
  },
  /** Checks every wallet's balance on every chain with a low-balance threshold (WalletBalanceLow). */
  checkBalances: {
    queue: "wallet-balance-check",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "check-balances",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /** Samples each project's waiting work once a minute for the activity page's queue depth chart. */
  sampleQueueDepths: {
    queue: "queue-depth-sample",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "sample-queue-depths",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /** Finds unfinished transactions without a live job (Redis lost, crash) and revives them. */
  reconcileTransactions: {
    queue: "transaction-reconcile",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "reconcile",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /** Compares active wallets' nonce counters with their chains (apps/tx-worker reconcile-nonces). */
  reconcileNonces: {
    queue: "nonce-reconcile",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "reconcile-nonces",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /**
   * Delivers one event to one registration. Like a transaction's job, it lives until the delivery
   * is final: a failed attempt schedules the next one on the retry schedule (`runAgainIn`).
   */
  deliverWebhook: {
    queue: "webhook-delivery",
    payload: z.object({ v: z.literal(1), deliveryId: z.uuid() }),
    jobId: (p: { deliveryId: string }) => `delivery-${p.deliveryId}`,
    // As processTransaction: the retry schedule of the receiver is the processor's (runAgainIn);
    // these retries are for the worker's own transient faults (Postgres), at most 30 s apart.
    options: {
      attempts: UNTIL_FINISHED_ATTEMPTS,
      backoff: { type: CAPPED_EXPONENTIAL, delay: 1000 },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
    maxStalledCount: UNTIL_FINISHED_ATTEMPTS,
  },
  /** Revives PENDING deliveries whose job is gone (Redis lost, crash between commit and enqueue). */
  reconcileDeliveries: {
    queue: "webhook-reconcile",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "reconcile",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /** Erases webhook secrets whose rotation grace period has ended (apps/webhook-worker clear-retired-secrets). */
  clearRetiredSecrets: {
    queue: "webhook-retired-secrets",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "clear-retired-secrets",
    options: SCHEDULED_JOB_OPTIONS,
  },
  /**
   * Deletes events dispatched longer ago than WEBHOOK_HISTORY_RETENTION_DAYS, with their deliveries
   * and stats entries (apps/webhook-worker prune-webhook-history).
   */
  pruneWebhookHistory: {
    queue: "webhook-history-prune",
    payload: z.object({ v: z.literal(1) }),
    jobId: () => "prune-webhook-history",
    options: SCHEDULED_JOB_OPTIONS,
  },
} as const satisfies Record<string, JobDefinition>;

/** Repeating jobs: which catalog job runs how often. */
export const jobSchedules = {
  sweepSignatures: { everyMs: 60_000 },
  reconcileTransactions: { everyMs: 15_000 },
  reconcileNonces: { everyMs: 30_000 },
  reconcileDeliveries: { everyMs: 30_000 },
  clearRetiredSecrets: { everyMs: 60_000 },
  pruneWebhookHistory: { everyMs: 60_000 },
  checkBalances: { everyMs: 60_000 },
  sampleQueueDepths: { everyMs: 60_000 },
} as const satisfies Partial<Record<keyof typeof jobCatalog, { everyMs: number }>>;

interface JobDefinition {
  queue: string;
  payload: z.ZodType;
  jobId: (payload: never) => string;
  options: JobsOptions;
  /** BullMQ's maxStalledCount for this queue's workers; BullMQ's default (1) when absent. */
  maxStalledCount?: number;
}

export type JobName = keyof typeof jobCatalog;
export type JobPayload<N extends JobName> = z.output<(typeof jobCatalog)[N]["payload"]>;

/** The job id the catalog derives from a payload (known before the job is added). */
export const jobIdOf = <N extends JobName>(name: N, payload: JobPayload<N>): string =>
  (jobCatalog[name].jobId as (p: JobPayload<N>) => string)(payload);

/**
 * What a createWallet job answers the gateway: the wallet made, or why it was refused (a backend
 * this worker is not configured for), as a result rather than a failure, so the gateway can
 * answer 400 with the worker's message instead of a failed job's text.
 */
export type CreateWalletResult = { walletId: string; address: string; backend: CustodyBackendName } | { refused: string };
