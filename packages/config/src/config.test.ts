import { randomBytes } from "node:crypto";
import { ConfigError, loadCliConfig, loadGatewayConfig, loadMigrateConfig, loadSigningWorkerConfig, loadTxWorkerConfig, loadWebhookWorkerConfig } from "./index";

describe("configuration", () => {
  it("has defaults that make the quick start work", () => {
    const config = loadGatewayConfig({ WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64") });
    expect(config).toMatchObject({ port: 3000, databaseUrl: "postgresql://postgres@127.0.0.1:5432/relay", queuePrefix: "relay" });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("names the bad variable", () => {
    expect(() => loadGatewayConfig({ PORT: "eighty" })).toThrow(/PORT \("eighty"\)/);
    expect(() => loadGatewayConfig({ REDIS_URL: "http://x" })).toThrow(/REDIS_URL \(set\): must be a redis:\/\//);
  });

  it("takes DATABASE_POOLER none (default) or transaction, in every app and the CLI, and keeps migrations off the pooler", () => {
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY }).databasePooler).toBe("none");
    const pooled = { DATABASE_POOLER: "transaction", KEY_ENCRYPTION_KEY, WEBHOOK_SECRET_KEY };
    expect(loadGatewayConfig(pooled).databasePooler).toBe("transaction");
    expect(loadTxWorkerConfig(pooled).databasePooler).toBe("transaction");
    expect(loadSigningWorkerConfig(pooled).databasePooler).toBe("transaction");
    expect(loadWebhookWorkerConfig(pooled).databasePooler).toBe("transaction");
    expect(loadCliConfig({ needsKek: false }, pooled).databasePooler).toBe("transaction");
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, DATABASE_POOLER: "session" })).toThrow(/DATABASE_POOLER \("session"\): must be none or transaction/);
    expect(loadMigrateConfig({}).databaseUrl).toMatch(/^postgresql:/);
    expect(() => loadMigrateConfig({ DATABASE_POOLER: "transaction" })).toThrow(/DATABASE_POOLER \("transaction"\): migrations need a session of their own/);
  });

  it("refuses to start a signing worker without a valid key-encryption key, without printing it", () => {
    expect(() => loadSigningWorkerConfig({})).toThrow(ConfigError);
    expect(() => loadSigningWorkerConfig({})).toThrow(/KEY_ENCRYPTION_KEY \(unset\)/);
    const short = randomBytes(16).toString("base64");
    try {
      loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY: short });
      throw new Error("expected a rejection");
    } catch (e) {
      expect((e as Error).message).toMatch(/KEY_ENCRYPTION_KEY \(set\): must be 32 random bytes/);
      expect((e as Error).message).not.toContain(short);
    }
  });

  it("takes a tx-worker job lock duration of at least a second, BullMQ's 30 s by default", () => {
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).jobLockMs).toBe(30_000);
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, TX_JOB_LOCK_MS: "3000" }).jobLockMs).toBe(3000);
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, TX_JOB_LOCK_MS: "500" })).toThrow(/TX_JOB_LOCK_MS \("500"\): must be at least 1000 ms/);
  });

  it("runs 128 transaction jobs at once per tx-worker by default, TX_CONCURRENCY otherwise", () => {
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).concurrency).toBe(128);
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, TX_CONCURRENCY: "8" }).concurrency).toBe(8);
  });

  it("takes a webhook-worker job lock duration of at least a second, BullMQ's 30 s by default", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY }).jobLockMs).toBe(30_000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_JOB_LOCK_MS: "2000" }).jobLockMs).toBe(2000);
    expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_JOB_LOCK_MS: "999" })).toThrow(/WEBHOOK_JOB_LOCK_MS \("999"\): must be at least 1000 ms/);
  });

  it("takes how long work stays quiet before a reconciler checks it, a minute by default", () => {
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).reconcileAfterMs).toBe(60_000);
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, TX_RECONCILE_AFTER_MS: "5000" }).reconcileAfterMs).toBe(5000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY }).reconcileAfterMs).toBe(60_000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_RECONCILE_AFTER_MS: "5000" }).reconcileAfterMs).toBe(5000);
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, TX_RECONCILE_AFTER_MS: "10" })).toThrow(/TX_RECONCILE_AFTER_MS \("10"\): must be at least 1000 ms/);
  });

  test("the receiver breaker opens after 3 time-outs for 30 s by default; 0 turns it off; a bad value stops the start", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY }).breaker).toEqual({ afterTimeouts: 3, openMs: 30_000 });
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_BREAKER_TIMEOUTS: "0", WEBHOOK_BREAKER_OPEN_MS: "5000" }).breaker).toEqual({ afterTimeouts: 0, openMs: 5000 });
    expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_BREAKER_TIMEOUTS: "-1" })).toThrow(/WEBHOOK_BREAKER_TIMEOUTS \("-1"\): must be 0 \(off\) or more/);
    expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_BREAKER_OPEN_MS: "500" })).toThrow(/WEBHOOK_BREAKER_OPEN_MS \("500"\): must be at least 1000 ms/);
  });

  test("webhook history is kept 30 days by default, for ever with 0, and a bad value stops the start", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY }).historyRetentionMs).toBe(30 * 24 * 3600_000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_HISTORY_RETENTION_DAYS: "7" }).historyRetentionMs).toBe(7 * 24 * 3600_000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_HISTORY_RETENTION_DAYS: "0" }).historyRetentionMs).toBeNull();
    expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_HISTORY_RETENTION_DAYS: "1.5" })).toThrow(/WEBHOOK_HISTORY_RETENTION_DAYS \("1.5"\): must be a whole number of days/);
  });

  test("one key id names one key: an id given a second, different key is refused at start-up", () => {
    const [a, b] = [randomBytes(32).toString("base64"), randomBytes(32).toString("base64")];
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY: b, KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${a}` })).toThrow(
      /KEY_ENCRYPTION_KEYS_PREVIOUS \(set\): key id "k1" is given two different keys \(it is KEY_ENCRYPTION_KEY_ID's id too\)/,
    );
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY: b, KEY_ENCRYPTION_KEY_ID: "k2", KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${a},k1:${b}` })).toThrow(/key id "k1" is given two different keys/);
    // The same key listed again under its id is harmless; a rotation with a new id works.
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY: a, KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${a}` }).kek.keys.size).toBe(1);
    expect([...loadTxWorkerConfig({ KEY_ENCRYPTION_KEY: b, KEY_ENCRYPTION_KEY_ID: "k2", KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${a}` }).kek.keys.keys()].sort()).toEqual(["k1", "k2"]);
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY: b, WEBHOOK_SECRET_KEYS_PREVIOUS: `k1:${a}` })).toThrow(/WEBHOOK_SECRET_KEYS_PREVIOUS \(set\): key id "k1"/);
  });

  test("TRUST_PROXY is read as Express means it: booleans, hop counts, addresses and subnets; anything else names the variable", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    const read = (TRUST_PROXY?: string) => loadGatewayConfig(TRUST_PROXY === undefined ? { WEBHOOK_SECRET_KEY } : { WEBHOOK_SECRET_KEY, TRUST_PROXY }).trustProxy;
    expect([read(), read("true"), read("false"), read("1"), read("10.0.0.0/8, 127.0.0.1,loopback")]).toEqual(["loopback", true, false, 1, "10.0.0.0/8, 127.0.0.1,loopback"]);
    expect(() => read("yes")).toThrow(/TRUST_PROXY \("yes"\): "yes" is not true, false, a hop count/);
    expect(() => read("10.0.0.0/8,proxy.internal")).toThrow(/"proxy.internal" is not/);
  });

  test("a variable set to the empty string counts as unset: its default, or 'is required'", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    const defaults = loadGatewayConfig({ WEBHOOK_SECRET_KEY });
    const empty = loadGatewayConfig({ WEBHOOK_SECRET_KEY, PORT: "", SHUTDOWN_GRACE_MS: "", BODY_LIMIT_BYTES: "" });
    expect([empty.port, empty.shutdownGraceMs, empty.bodyLimitBytes]).toEqual([defaults.port, defaults.shutdownGraceMs, defaults.bodyLimitBytes]);
    expect(defaults.port).toBeGreaterThan(0);
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY: "" })).toThrow(/KEY_ENCRYPTION_KEY \(empty\): is required/);
  });

  test("webhooks go to loopback and private networks only with WEBHOOK_ALLOW_PRIVATE=true, whatever NODE_ENV says", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    for (const NODE_ENV of [undefined, "development", "test", "production"]) {
      const env = NODE_ENV ? { WEBHOOK_SECRET_KEY, NODE_ENV } : { WEBHOOK_SECRET_KEY };
      expect({ NODE_ENV, allowed: loadWebhookWorkerConfig(env).allowPrivateNetworks }).toEqual({ NODE_ENV, allowed: false });
      expect(loadWebhookWorkerConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: "false" }).allowPrivateNetworks).toBe(false);
      expect(loadWebhookWorkerConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: "true" }).allowPrivateNetworks).toBe(true);
    }
  });

  test("WEBHOOK_DNS_SERVERS names the DNS servers of callback hosts: IP addresses with optional ports; none means the system's", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY }).dnsServers).toEqual([]);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_DNS_SERVERS: "1.1.1.1, 8.8.8.8:53,[2606:4700::1111]:53,2001:4860:4860::8888" }).dnsServers).toEqual([
      "1.1.1.1",
      "8.8.8.8:53",
      "[2606:4700::1111]:53",
      "2001:4860:4860::8888",
    ]);
    for (const bad of ["dns.google", "1.1.1.1;rm", "https://1.1.1.1", "999.1.1.1", "1.1.1.1:70000", "[1.1.1.1]:53x"]) {
      expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_DNS_SERVERS: bad })).toThrow(/WEBHOOK_DNS_SERVERS.*comma-separated list of IP addresses/);
    }
  });

  it("accepts a hash-tagged queue prefix for Redis Cluster", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "{relay}" }).queuePrefix).toBe("{relay}");
  });

  it("takes a shutdown grace period for every app, 20 s by default", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY }).shutdownGraceMs).toBe(20_000);
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, SHUTDOWN_GRACE_MS: "0" }).shutdownGraceMs).toBe(0);
    expect(loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY, SHUTDOWN_GRACE_MS: "5000" }).shutdownGraceMs).toBe(5000);
    expect(() => loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, SHUTDOWN_GRACE_MS: "-1" })).toThrow(/SHUTDOWN_GRACE_MS \("-1"\): must be 0 or more/);
  });

  it("bounds the gateway's wait for one Postgres answer, 10 s by default", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY }).databaseQueryTimeoutMs).toBe(10_000);
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, DATABASE_QUERY_TIMEOUT_MS: "3000" }).databaseQueryTimeoutMs).toBe(3000);
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, DATABASE_QUERY_TIMEOUT_MS: "0" })).toThrow(/DATABASE_QUERY_TIMEOUT_MS \("0"\): must be at least 100 ms/);
  });

  it("bounds each worker's wait for one Postgres answer, 30 s by default, so a vanished server cannot hold its jobs", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).databaseQueryTimeoutMs).toBe(30_000);
    expect(loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY }).databaseQueryTimeoutMs).toBe(30_000);
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, DATABASE_QUERY_TIMEOUT_MS: "5000" }).databaseQueryTimeoutMs).toBe(5000);
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, DATABASE_QUERY_TIMEOUT_MS: "50" })).toThrow(/DATABASE_QUERY_TIMEOUT_MS \("50"\): must be at least 100 ms/);
  });

  it("keeps a rotated-out webhook secret in use for 24 h by default, 0 to 30 days when set", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY }).webhookRotationGraceMs).toBe(86_400_000);
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_ROTATION_GRACE_MS: "0" }).webhookRotationGraceMs).toBe(0);
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_ROTATION_GRACE_MS: "3600000" }).webhookRotationGraceMs).toBe(3_600_000);
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_ROTATION_GRACE_MS: "-1" })).toThrow(/WEBHOOK_ROTATION_GRACE_MS \("-1"\): must be 0 or more/);
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_ROTATION_GRACE_MS: "2592000001" })).toThrow(/WEBHOOK_ROTATION_GRACE_MS \("2592000001"\): must be at most/);
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, WEBHOOK_ROTATION_GRACE_MS: "1.5" })).toThrow(/WEBHOOK_ROTATION_GRACE_MS \("1.5"\): must be a whole number/);
  });

  it("loads the active key and previous keys for rotation", () => {
    const active = randomBytes(32).toString("base64");
    const old = randomBytes(32).toString("base64");
    const config = loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY: active, KEY_ENCRYPTION_KEY_ID: "k2", KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${old}` });
    expect(config.kek.activeKeyId).toBe("k2");
    expect(config.kek.keys.get("k1")?.toString("base64")).toBe(old);
    expect(() => loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY: active, KEY_ENCRYPTION_KEYS_PREVIOUS: "k1" })).toThrow(/id:base64key/);
  });

  it("leaves metrics listeners and the admin dashboard off unless configured, and takes tokens only when long enough", () => {
    const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
    const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY })).toMatchObject({ metricsToken: undefined, adminToken: undefined });
    // Compose passes `${ADMIN_TOKEN:-}`: empty means unset.
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, ADMIN_TOKEN: "", METRICS_TOKEN: "" })).toMatchObject({ metricsToken: undefined, adminToken: undefined });
    const token = "0123456789abcdef0123";
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, ADMIN_TOKEN: token, METRICS_TOKEN: token })).toMatchObject({ metricsToken: token, adminToken: token });
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, ADMIN_TOKEN: "short" })).toThrow(/ADMIN_TOKEN \(set\): must be at least 16 characters/);

    expect(loadTxWorkerConfig({ KEY_ENCRYPTION_KEY }).metrics).toEqual({ port: 0, host: "127.0.0.1", token: undefined });
    expect(loadSigningWorkerConfig({ KEY_ENCRYPTION_KEY, METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }).metrics).toEqual({ port: 9464, host: "0.0.0.0", token: undefined });
    expect(loadWebhookWorkerConfig({ WEBHOOK_SECRET_KEY, METRICS_PORT: "9465", METRICS_TOKEN: token }).metrics).toEqual({ port: 9465, host: "127.0.0.1", token });
    expect(() => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, METRICS_PORT: "70000" })).toThrow(/METRICS_PORT \("70000"\)/);
  });
});
