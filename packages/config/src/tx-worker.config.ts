import { z } from "zod";
import { reconcileAfterMs, toWorkerCommon, workerCommon, type WorkerCommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import { custodyFields, toCustodyConfig, type CustodyConfig } from "./custody";
import { jobLockMs, kekFields, positiveInt, toKeyEncryptionConfig, type KeyEncryptionConfig } from "./fields";

const txWorkerSchema = z.object({
  ...workerCommon,
  ...kekFields,
  ...custodyFields,
  /**
   * Transaction jobs in flight per process. A job's first run is mostly waits (about eight round
   * trips to the node and Postgres), so the slots, not the CPU, bound how fast a backlog drains:
   * 32 were all taken at half load once those waits slowed (docs/architecture.md, "Transaction jobs in flight").
   */
  TX_CONCURRENCY: positiveInt(128),
  /** How long one JSON-RPC call may take before it counts as a transient failure. */
  RPC_TIMEOUT_MS: positiveInt(10_000),
  /**
   * How long a transaction job stays locked to a replica that stops renewing the lock (it died):
   * another replica takes the job over after one to three times this. Default: BullMQ's own.
   */
  TX_JOB_LOCK_MS: jobLockMs,
  TX_RECONCILE_AFTER_MS: reconcileAfterMs,
});

export interface TxWorkerConfig extends WorkerCommonConfig {
  kek: KeyEncryptionConfig;
  /** HSM and KMS settings, for wallets whose key one of them keeps. */
  custody: CustodyConfig;
  concurrency: number;
  rpcTimeoutMs: number;
  jobLockMs: number;
  /** An unfinished transaction untouched for this long is checked for a live job (and revived without one). */
  reconcileAfterMs: number;
}

export function loadTxWorkerConfig(env: Env = process.env): Readonly<TxWorkerConfig> {
  const v = parseEnv(txWorkerSchema, env);
  return Object.freeze({
    ...toWorkerCommon(v),
    kek: toKeyEncryptionConfig(v),
    custody: toCustodyConfig(v),
    concurrency: v.TX_CONCURRENCY,
    rpcTimeoutMs: v.RPC_TIMEOUT_MS,
    jobLockMs: v.TX_JOB_LOCK_MS,
    reconcileAfterMs: v.TX_RECONCILE_AFTER_MS,
  });
}
