import { isIP } from "node:net";
import { z } from "zod";
import { parseEnv, type Env } from "./load";
import {
  adminTokenField,
  databaseQueryTimeoutMs,
  databaseUrl,
  jobLockMs,
  kekFields,
  logLevel,
  nodeEnv,
  port,
  positiveInt,
  queuePrefix,
  redisUrl,
  shutdownGraceMs,
  toKeyEncryptionConfig,
  toWebhookKeyring,
  trustProxy,
  webhookKeyFields,
  metricsTokenField,
  toWorkerMetrics,
  workerMetricsFields,
  type KeyEncryptionConfig,
  type WorkerMetricsConfig,
} from "./fields";

const common = {
  NODE_ENV: nodeEnv,
  LOG_LEVEL: logLevel,
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  QUEUE_PREFIX: queuePrefix,
  SHUTDOWN_GRACE_MS: shutdownGraceMs,
};

interface CommonConfig {
  env: "development" | "production" | "test";
  logLevel: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  /** How long SIGTERM waits for work in flight before handing it back (docs/operations.md). */
  shutdownGraceMs: number;
}

const toCommon = (v: z.output<z.ZodObject<typeof common>>): CommonConfig => ({
  env: v.NODE_ENV,
  logLevel: v.LOG_LEVEL,
  databaseUrl: v.DATABASE_URL,
  redisUrl: v.REDIS_URL,
  queuePrefix: v.QUEUE_PREFIX,
  shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
});

/**
 * What every worker has beside the common settings. A worker's statements are short (one row, one
 * batch); the time-out is long enough for any of them under load and short enough that a query on
 * a dead connection does not hold its job, and the jobs queued behind it, for good.
 */
const workerCommon = { ...common, ...workerMetricsFields, DATABASE_QUERY_TIMEOUT_MS: databaseQueryTimeoutMs(30_000) };

interface WorkerCommonConfig extends CommonConfig {
  metrics: WorkerMetricsConfig;
  /** A query waits at most this long for Postgres' answer (a vanished server). */
  databaseQueryTimeoutMs: number;
}

const toWorkerCommon = (v: z.output<z.ZodObject<typeof workerCommon>>): WorkerCommonConfig => ({
  ...toCommon(v),
  metrics: toWorkerMetrics(v),
  databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
});

/** A retired webhook secret is meant to bridge a receiver's switch, not to stay valid indefinitely. */
const MAX_SECRET_ROTATION_GRACE_MS = 30 * 24 * 60 * 60 * 1000;

const gatewaySchema = z.object({
  ...common,
  HOST: z.string().default("127.0.0.1"),
  PORT: port(3000),
  BODY_LIMIT_BYTES: positiveInt(256 * 1024),
  // Requests still PENDING after 10 minutes are swept as abandoned; no wait may come near that.
  SIGN_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000, "must be at most 60000 ms").default(5000),
  RATE_LIMIT_PER_MINUTE: positiveInt(6000),
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2000),
  TRUST_PROXY: trustProxy,
  /** A request never waits longer than this for one Postgres answer (a stalled server). */
  DATABASE_QUERY_TIMEOUT_MS: databaseQueryTimeoutMs(10_000),
  /**
   * After a webhook secret rotation, deliveries are signed with the retired secret too for this
   * long (docs/webhooks.md, "Rotating a secret"); 0: the old secret stops at once. No SECRET in the
   * name: the value is not one, and a bad value is echoed in the start-up error.
   */
  /** Active event callback registrations a project may have: each event fans out to all of them. */
  WEBHOOK_MAX_CALLBACKS_PER_PROJECT: positiveInt(25),
  WEBHOOK_ROTATION_GRACE_MS: z.coerce
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(MAX_SECRET_ROTATION_GRACE_MS, "must be at most 2592000000 ms (30 days)")
    .default(24 * 60 * 60 * 1000),
  ...webhookKeyFields,
  ...metricsTokenField,
  ...adminTokenField,
});

export interface GatewayConfig extends CommonConfig {
  host: string;
  port: number;
  bodyLimitBytes: number;
  signTimeoutMs: number;
  rateLimitPerMinute: number;
  authCacheTtlMs: number;
  /** Express's `trust proxy`: true, false, a hop count, or addresses, subnets and names. */
  trustProxy: boolean | number | string;
  databaseQueryTimeoutMs: number;
  /** Seals the webhook secrets the gateway creates (never the wallet KEK). */
  webhookKeyring: KeyEncryptionConfig;
  /** How long a rotated-out webhook secret is still signed with, beside the new one (0: not at all). */
  webhookRotationGraceMs: number;
  /** Active event callback registrations a project may have. */
  maxCallbacksPerProject: number;
  /** Required from scrapes of /metrics when set; in production /metrics is off without it. */
  metricsToken: string | undefined;
  /** Guards the queue dashboard (/admin/queues); unset: no dashboard. */
  adminToken: string | undefined;
}

export function loadGatewayConfig(env: Env = process.env): Readonly<GatewayConfig> {
  const v = parseEnv(gatewaySchema, env);
  return Object.freeze({
    ...toCommon(v),
    host: v.HOST,
    port: v.PORT,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    signTimeoutMs: v.SIGN_TIMEOUT_MS,
    rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
    authCacheTtlMs: v.AUTH_CACHE_TTL_MS,
    trustProxy: v.TRUST_PROXY,
    databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
    webhookKeyring: toWebhookKeyring(v),
    webhookRotationGraceMs: v.WEBHOOK_ROTATION_GRACE_MS,
    maxCallbacksPerProject: v.WEBHOOK_MAX_CALLBACKS_PER_PROJECT,
    metricsToken: v.METRICS_TOKEN,
    adminToken: v.ADMIN_TOKEN,
  });
}

/**
 * How long work stays quiet before a reconciler checks that it still has a live job. Only a check
 * (a job that exists is left alone), so a short value costs Redis reads, not double work.
 */
const reconcileAfterMs = z.coerce.number().int("must be a whole number").min(1000, "must be at least 1000 ms").default(60_000);

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

const signingWorkerSchema = z.object({
  ...workerCommon,
  ...kekFields,
  SIGNING_CONCURRENCY: positiveInt(64),
});

export interface SigningWorkerConfig extends WorkerCommonConfig {
  kek: KeyEncryptionConfig;
  concurrency: number;
}

export function loadSigningWorkerConfig(env: Env = process.env): Readonly<SigningWorkerConfig> {
  const v = parseEnv(signingWorkerSchema, env);
  return Object.freeze({ ...toWorkerCommon(v), kek: toKeyEncryptionConfig(v), concurrency: v.SIGNING_CONCURRENCY });
}

const txWorkerSchema = z.object({
  ...workerCommon,
  ...kekFields,
  TX_CONCURRENCY: positiveInt(32),
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
    concurrency: v.TX_CONCURRENCY,
    rpcTimeoutMs: v.RPC_TIMEOUT_MS,
    jobLockMs: v.TX_JOB_LOCK_MS,
    reconcileAfterMs: v.TX_RECONCILE_AFTER_MS,
  });
}

const cliSchema = z.object({ ...common, ...kekFields });
const cliReadOnlySchema = z.object(common);

export interface CliConfig extends CommonConfig {
  /** Absent when the command does not need to encrypt or decrypt keys. */
  kek: KeyEncryptionConfig | undefined;
}

/** The admin CLI needs the KEK only for commands that create or import wallets. */
export function loadCliConfig(options: { needsKek: boolean }, env: Env = process.env): Readonly<CliConfig> {
  if (options.needsKek) {
    const v = parseEnv(cliSchema, env);
    return Object.freeze({ ...toCommon(v), kek: toKeyEncryptionConfig(v) });
  }
  return Object.freeze({ ...toCommon(parseEnv(cliReadOnlySchema, env)), kek: undefined });
}

const cliWebhookKeySchema = z.object(webhookKeyFields);

/** The webhook secrets' keyring, for `relay webhooks reseal` (the same WEBHOOK_SECRET_KEY* as the gateway and webhook workers). */
export function loadCliWebhookKeyring(env: Env = process.env): Readonly<KeyEncryptionConfig> {
  return toWebhookKeyring(parseEnv(cliWebhookKeySchema, env));
}

const migrateSchema = z.object({ LOG_LEVEL: logLevel, DATABASE_URL: databaseUrl });

export function loadMigrateConfig(env: Env = process.env): Readonly<{ databaseUrl: string; logLevel: string }> {
  const v = parseEnv(migrateSchema, env);
  return Object.freeze({ databaseUrl: v.DATABASE_URL, logLevel: v.LOG_LEVEL });
}
