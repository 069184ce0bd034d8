import { z } from "zod";
import { common, toCommon, type CommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import {
  adminTokenField,
  databaseQueryTimeoutMs,
  metricsTokenField,
  port,
  positiveInt,
  toWebhookKeyring,
  trustProxy,
  webhookKeyFields,
  type KeyEncryptionConfig,
} from "./fields";

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
  /** Active event callback registrations a project may have: each event fans out to all of them. */
  WEBHOOK_MAX_CALLBACKS_PER_PROJECT: positiveInt(25),
  /**
   * After a webhook secret rotation, deliveries are signed with the retired secret too for this
   * long (docs/webhooks.md, "Rotating a secret"); 0: the old secret stops at once. No SECRET in the
   * name: the value is not one, and a bad value is echoed in the start-up error.
   */
  WEBHOOK_ROTATION_GRACE_MS: z.coerce
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(MAX_SECRET_ROTATION_GRACE_MS, "must be at most 2592000000 ms (30 days)")
    .default(24 * 60 * 60 * 1000),
  /** JSON file of the records the reference's examples name (the quick start writes it). */
  REFERENCE_EXAMPLES_FILE: z.string().min(1).optional(),
  /** The console's built files; unset: apps/console/dist beside the gateway (docs/console.md). */
  CONSOLE_DIR: z.string().min(1).optional(),
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
  /** The records /openapi.json's examples name; unset: built-in example values. */
  referenceExamplesFile: string | undefined;
  /** The console's built files; unset: the gateway's default (apps/console/dist). */
  consoleDir: string | undefined;
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
    referenceExamplesFile: v.REFERENCE_EXAMPLES_FILE,
    consoleDir: v.CONSOLE_DIR,
  });
}
