import { randomBytes } from "node:crypto";
import { ConfigError, hashTag, loadCliConfig, loadGatewayConfig, loadTxWorkerConfig } from "./index";

const WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");
const KEY_ENCRYPTION_KEY = randomBytes(32).toString("base64");

describe("REDIS_CLUSTER_NODES", () => {
  it("is empty by default: one Redis at REDIS_URL", () => {
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY }).redisClusterNodes).toEqual([]);
  });

  it("reads a comma-separated list of host:port seeds", () => {
    const config = loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "{relay}", REDIS_CLUSTER_NODES: "10.0.0.1:7000, redis-b.internal:7001,[::1]:7002" });
    expect(config.redisClusterNodes).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis-b.internal", port: 7001 },
      { host: "::1", port: 7002 },
    ]);
  });

  it.each(["10.0.0.1", "10.0.0.1:0", "10.0.0.1:70000", "redis://10.0.0.1:7000", "a b:1"])("names the variable when a seed (%s) is not host:port", (bad) => {
    expect(() => loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "{relay}", REDIS_CLUSTER_NODES: bad })).toThrow(
      /REDIS_CLUSTER_NODES \(.*\): ".*" is not host:port; give a comma-separated list of host:port seeds/,
    );
  });

  it.each(["relay", "{}relay", "relay{", "}relay{x"])("refuses a prefix (%s) that would spread a queue over several slots, naming both variables and the fix", (prefix) => {
    for (const load of [
      () => loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: prefix, REDIS_CLUSTER_NODES: "127.0.0.1:7000" }),
      () => loadTxWorkerConfig({ KEY_ENCRYPTION_KEY, QUEUE_PREFIX: prefix, REDIS_CLUSTER_NODES: "127.0.0.1:7000" }),
      () => loadCliConfig({ needsKek: false }, { QUEUE_PREFIX: prefix, REDIS_CLUSTER_NODES: "127.0.0.1:7000" }),
    ]) {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/QUEUE_PREFIX \(.*\): with REDIS_CLUSTER_NODES set, the prefix must hold a non-empty hash tag.*use e\.g\. QUEUE_PREFIX=\{relay[^}]*\}/);
    }
  });

  it("takes a hash-tagged prefix on a cluster, and any prefix without one", () => {
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "{relay}", REDIS_CLUSTER_NODES: "127.0.0.1:7000" }).queuePrefix).toBe("{relay}");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "prod{relay}", REDIS_CLUSTER_NODES: "127.0.0.1:7000" }).queuePrefix).toBe("prod{relay}");
    expect(loadGatewayConfig({ WEBHOOK_SECRET_KEY, QUEUE_PREFIX: "relay" }).queuePrefix).toBe("relay");
  });
});

describe("hashTag", () => {
  it("finds the tag as Redis does: the first { and the first } after it, when not empty", () => {
    expect(hashTag("{relay}:send:wait")).toBe("relay");
    expect(hashTag("a{b}{c}")).toBe("b");
    expect(hashTag("{}{c}")).toBeUndefined();
    expect(hashTag("}{x}")).toBe("x");
    expect(hashTag("relay:send")).toBeUndefined();
    expect(hashTag("{relay")).toBeUndefined();
  });
});
