import { isIP } from "node:net";
import { ConfigError } from "./load";
import { z } from "zod";

/** Building blocks shared by the app schemas: one definition per variable. */

export const databaseUrl = z
  .string()
  .default("postgresql://postgres@127.0.0.1:5432/relay")
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgresql:// URL");

/**
 * What sits between the apps and Postgres: `none` (direct, or a session pooler) or `transaction`
 * (PgBouncer in transaction pooling mode): statements are then sent unnamed and no startup options
 * are sent (docs/operations.md, "Behind PgBouncer").
 */
export const databasePooler = z.enum(["none", "transaction"], { message: "must be none or transaction" }).default("none");

export const redisUrl = z
  .string()
  .default("redis://127.0.0.1:6379")
  .refine((v) => /^rediss?:\/\//.test(v), "must be a redis:// or rediss:// URL");

/**
 * Seeds of a Redis Cluster ("host:port,host:port"); empty means one Redis at REDIS_URL. The
 * client learns the rest of the cluster (every master and replica) from any seed that answers.
 */
export const redisClusterNodes = z
  .string()
  .default("")
  .transform((v, ctx) => {
    const nodes: { host: string; port: number }[] = [];
    for (const item of v.split(",").map((s) => s.trim()).filter(Boolean)) {
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(item);
      const port = match ? Number(match[2]) : 0;
      if (!match || port < 1 || port > 65535) {
        ctx.addIssue({ code: "custom", message: `"${item}" is not host:port; give a comma-separated list of host:port seeds, e.g. 10.0.0.1:6379,10.0.0.2:6379` });
        return z.NEVER;
      }
      nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ""), port });
    }
    return nodes;
  });

/**
 * The hash tag Redis Cluster hashes a key by: what lies between the first `{` and the first `}`
 * after it, when that is not empty; undefined when the key has none (the whole key is hashed).
 */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf("{");
  if (open < 0) return undefined;
  const close = key.indexOf("}", open + 1);
  if (close < 0 || close === open + 1) return undefined;
  return key.slice(open + 1, close);
}

/** Prefix of every BullMQ key; two deployments (or test runs) on one Redis never collide. */
export const queuePrefix = z
  .string()
  .default("relay")
  .refine((v) => /^[A-Za-z0-9:_{}.-]{1,64}$/.test(v), "use 1-64 letters, digits or :_{}.-");

/**
 * How long a stopping process (SIGTERM) may take to finish its work in flight: HTTP requests in
 * the gateway, active jobs in a worker. Jobs still running at the end are handed back to the queue
 * for another replica; the process then closes its connections and exits.
 */
export const shutdownGraceMs = z.coerce.number().int("must be a whole number").min(0, "must be 0 or more").default(20_000);

/**
 * BullMQ's lockDuration (and stalled-check interval) of one worker kind: how long a job stays
 * locked to a process that stopped renewing the lock (it died) before another replica takes it.
 */
export const jobLockMs = z.coerce.number().int("must be a whole number").min(1000, "must be at least 1000 ms").default(30_000);

/**
 * How long a process waits for one Postgres answer (node-postgres `query_timeout`). Without it, a
 * query on a connection whose server vanished (host lost, network black hole) waits for ever; with
 * it, the query fails, its connection is discarded and the next query opens a fresh one.
 */
export const databaseQueryTimeoutMs = (defaultMs: number) =>
  z.coerce.number().int("must be a whole number").min(100, "must be at least 100 ms").default(defaultMs);

export const logLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info");

export const nodeEnv = z.enum(["development", "production", "test"]).default("development");

export const positiveInt = (fallback: number) =>
  z.coerce.number().int("must be a whole number").positive("must be greater than 0").default(fallback);

export const port = (fallback: number) =>
  z.coerce.number().int().min(0).max(65535, "must be a TCP port (0-65535)").default(fallback);

const base64Key = z
  .string()
  .refine((v) => Buffer.from(v, "base64").length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(v), {
    message: "must be 32 random bytes in base64 (e.g. `openssl rand -base64 32`)",
  });

const keyId = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, "use 1-32 letters, digits, _ or -").default("k1");
const previousKeys = z
  .string()
  .default("")
  .refine(
    (v) =>
      v === "" ||
      v.split(",").every((pair) => {
        const [id, key] = pair.split(":");
        return !!id && /^[A-Za-z0-9_-]{1,32}$/.test(id) && !!key && base64Key.safeParse(key).success;
      }),
    "must be a comma-separated list of id:base64key pairs",
  );

/**
 * The key-encryption key (KEK) that protects private keys at rest, its id, and older keys still
 * needed to decrypt records written before a rotation ("id:base64,id:base64").
 */
export const kekFields = {
  KEY_ENCRYPTION_KEY: base64Key,
  KEY_ENCRYPTION_KEY_ID: keyId,
  KEY_ENCRYPTION_KEYS_PREVIOUS: previousKeys,
};

/**
 * The key that protects webhook secrets at rest: a different key from the KEK, because the
 * gateway (which creates secrets) must never hold the key of the wallets.
 */
export const webhookKeyFields = {
  WEBHOOK_SECRET_KEY: base64Key,
  WEBHOOK_SECRET_KEY_ID: keyId,
  WEBHOOK_SECRET_KEYS_PREVIOUS: previousKeys,
};

export interface KeyEncryptionConfig {
  activeKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/**
 * An active key, its id and older keys → the keyring the envelope code takes. One id names one
 * key: an id given two different keys (a new key under the old id, the usual slip in a rotation)
 * is refused at start-up, where it used to replace the old key silently and leave every value
 * sealed under it unopenable ("tampered, or sealed for another record").
 */
export function toKeyring(active: string, activeId: string, previous: string, names: { active: string; previous: string }): KeyEncryptionConfig {
  const keys = new Map<string, Buffer>();
  const add = (id: string, key: Buffer) => {
    const known = keys.get(id);
    if (known && !known.equals(key)) {
      throw new ConfigError(
        `Invalid configuration:\n  ${names.previous} (set): key id "${id}" is given two different keys${id === activeId ? ` (it is ${names.active}'s id too)` : ""}; every key needs an id of its own: give the new key a new id`,
      );
    }
    keys.set(id, key);
  };
  for (const pair of previous.split(",").filter(Boolean)) {
    const [id, key] = pair.split(":") as [string, string];
    add(id, Buffer.from(key, "base64"));
  }
  add(activeId, Buffer.from(active, "base64"));
  return { activeKeyId: activeId, keys };
}

export const toKeyEncryptionConfig = (v: { KEY_ENCRYPTION_KEY: string; KEY_ENCRYPTION_KEY_ID: string; KEY_ENCRYPTION_KEYS_PREVIOUS: string }) =>
  toKeyring(v.KEY_ENCRYPTION_KEY, v.KEY_ENCRYPTION_KEY_ID, v.KEY_ENCRYPTION_KEYS_PREVIOUS, { active: "KEY_ENCRYPTION_KEY_ID", previous: "KEY_ENCRYPTION_KEYS_PREVIOUS" });

export const toWebhookKeyring = (v: { WEBHOOK_SECRET_KEY: string; WEBHOOK_SECRET_KEY_ID: string; WEBHOOK_SECRET_KEYS_PREVIOUS: string }) =>
  toKeyring(v.WEBHOOK_SECRET_KEY, v.WEBHOOK_SECRET_KEY_ID, v.WEBHOOK_SECRET_KEYS_PREVIOUS, { active: "WEBHOOK_SECRET_KEY_ID", previous: "WEBHOOK_SECRET_KEYS_PREVIOUS" });

/** An optional secret: unset or empty means off (compose files pass `${VAR:-}`). */
const optionalToken = z.preprocess(
  (v) => (v === "" ? undefined : v),
  z.string().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 24`)").optional(),
);

/**
 * Prometheus metrics. METRICS_TOKEN, when set, is required from every scrape (Bearer); the
 * gateway serves /metrics on its own port, a worker on METRICS_HOST:METRICS_PORT (0: no listener).
 */
export const metricsTokenField = { METRICS_TOKEN: optionalToken };
export const workerMetricsFields = {
  ...metricsTokenField,
  METRICS_PORT: z.coerce.number().int().min(0).max(65535, "must be a TCP port (0-65535), 0 for no metrics listener").default(0),
  METRICS_HOST: z.string().default("127.0.0.1"),
};

/** The admin dashboard (Bull Board at /admin/queues): mounted only when ADMIN_TOKEN is set. */
export const adminTokenField = { ADMIN_TOKEN: optionalToken };

export interface WorkerMetricsConfig {
  /** 0: no metrics listener. */
  port: number;
  host: string;
  token: string | undefined;
}

export const toWorkerMetrics = (v: { METRICS_PORT: number; METRICS_HOST: string; METRICS_TOKEN?: string | undefined }): WorkerMetricsConfig => ({
  port: v.METRICS_PORT,
  host: v.METRICS_HOST,
  token: v.METRICS_TOKEN,
});

const TRUST_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const isTrustEntry = (entry: string) => {
  if (TRUST_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [ip, bits, extra] = entry.split("/");
  return extra === undefined && ip !== undefined && isIP(ip) !== 0 && bits !== undefined && /^\d{1,3}$/.test(bits);
};

/**
 * Express's `trust proxy`, which decides the client address in the request log (`req.ip`): `true`
 * or `false`, a hop count (`1`: trust the one proxy in front), or a comma-separated list of
 * addresses, subnets and the names loopback, linklocal, uniquelocal. Passed on as a string,
 * `1` was read as the address 0.0.0.1 and `true` stopped the gateway at start-up without naming
 * the variable.
 */
export const trustProxy = z
  .string()
  .default("loopback")
  .transform((value, ctx) => {
    if (value === "true" || value === "false") return value === "true";
    if (/^\d+$/.test(value)) return Number(value);
    const bad = value.split(",").map((e) => e.trim()).find((e) => !isTrustEntry(e));
    if (bad !== undefined) {
      ctx.addIssue({ code: "custom", message: `${JSON.stringify(bad)} is not true, false, a hop count, an address, a subnet or loopback/linklocal/uniquelocal` });
      return z.NEVER;
    }
    return value;
  });
