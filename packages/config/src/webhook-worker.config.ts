import { isIP } from "node:net";
import { z } from "zod";
import { reconcileAfterMs, toWorkerCommon, workerCommon, type WorkerCommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import {
  jobLockMs,
  positiveInt,
  toWebhookKeyring,
  webhookKeyFields,
  type KeyEncryptionConfig,
} from "./fields";

/** A DNS server as Node's resolver takes it: `1.1.1.1`, `1.1.1.1:53`, `2606:4700::1111`, `[2606:4700::1111]:53`. */
function isDnsServer(server: string): boolean {
  const withPort = /^\[(.+)\]:(\d{1,5})$/.exec(server) ?? /^([^:]+):(\d{1,5})$/.exec(server);
  const [address, port] = withPort ? [withPort[1]!, Number(withPort[2])] : [server, 53];
  return isIP(address) !== 0 && port > 0 && port < 65_536;
}

const DEFAULT_RETRY_SCHEDULE = "5s,30s,2m,5m,15m,30m,1h,2h,4h,8h,8h";

const webhookWorkerSchema = z.object({
  ...workerCommon,
  ...webhookKeyFields,
  WEBHOOK_CONCURRENCY: positiveInt(64),
  /** Loopback and private addresses as destinations: never in production, allowed in development. */
  WEBHOOK_ALLOW_PRIVATE: z.enum(["true", "false"]).optional(),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .refine((v) => v.split(",").every((p) => /^\s*\d+(ms|s|m|h)\s*$/.test(p)), "must be a comma-separated list like 5s,30s,2m,1h"),
  WEBHOOK_CONNECT_TIMEOUT_MS: positiveInt(5000),
  WEBHOOK_TOTAL_TIMEOUT_MS: positiveInt(10_000),
  /** Time-outs in a row after which a registration's attempts are skipped until a probe answers; 0 turns it off. */
  WEBHOOK_BREAKER_TIMEOUTS: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(0, "must be 0 (off) or more").default(3),
  /** How long a registration's attempts are skipped before the probe. */
  WEBHOOK_BREAKER_OPEN_MS: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1000, "must be at least 1000 ms").default(30_000),
  /** Comma-separated DNS servers for callback hosts (`1.1.1.1,[2606:4700::1111]:53`); the system's when unset. */
  WEBHOOK_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean))
    .refine((servers) => servers.every(isDnsServer), "must be a comma-separated list of IP addresses, each with an optional :port (IPv6 in brackets when it has one)"),
  /** Like TX_JOB_LOCK_MS: how long a delivery stays locked to a replica that died. */
  WEBHOOK_JOB_LOCK_MS: jobLockMs,
  WEBHOOK_RECONCILE_AFTER_MS: reconcileAfterMs,
  /** Days an event's webhook history (its deliveries and stats entries) is kept after dispatch; 0 keeps it for ever. */
  WEBHOOK_HISTORY_RETENTION_DAYS: z.coerce
    .number({ error: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(0, "must be 0 (keep for ever) or more")
    .max(36_500, "must be at most 36500 (use 0 to keep for ever)")
    .default(30),
});

export interface WebhookWorkerConfig extends WorkerCommonConfig {
  webhookKeyring: KeyEncryptionConfig;
  concurrency: number;
  allowPrivateNetworks: boolean;
  retrySchedule: string;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** The per-registration circuit breaker for receivers that time out (docs/webhooks.md). */
  breaker: { afterTimeouts: number; openMs: number };
  /** DNS servers for callback hosts; empty for the system's. */
  dnsServers: readonly string[];
  jobLockMs: number;
  /** A PENDING delivery overdue by this long is checked for a live job (and revived without one). */
  reconcileAfterMs: number;
  /** How long an event's webhook history is kept after dispatch; null for ever. */
  historyRetentionMs: number | null;
}

export function loadWebhookWorkerConfig(env: Env = process.env): Readonly<WebhookWorkerConfig> {
  const v = parseEnv(webhookWorkerSchema, env);
  return Object.freeze({
    ...toWorkerCommon(v),
    webhookKeyring: toWebhookKeyring(v),
    concurrency: v.WEBHOOK_CONCURRENCY,
    // Only when asked for by name: a deployment that forgot NODE_ENV must not be open to SSRF.
    allowPrivateNetworks: v.WEBHOOK_ALLOW_PRIVATE === "true",
    retrySchedule: v.WEBHOOK_RETRY_SCHEDULE,
    connectTimeoutMs: v.WEBHOOK_CONNECT_TIMEOUT_MS,
    totalTimeoutMs: v.WEBHOOK_TOTAL_TIMEOUT_MS,
    breaker: { afterTimeouts: v.WEBHOOK_BREAKER_TIMEOUTS, openMs: v.WEBHOOK_BREAKER_OPEN_MS },
    dnsServers: Object.freeze(v.WEBHOOK_DNS_SERVERS),
    jobLockMs: v.WEBHOOK_JOB_LOCK_MS,
    reconcileAfterMs: v.WEBHOOK_RECONCILE_AFTER_MS,
    historyRetentionMs: v.WEBHOOK_HISTORY_RETENTION_DAYS === 0 ? null : v.WEBHOOK_HISTORY_RETENTION_DAYS * 24 * 3600_000,
  });
}
