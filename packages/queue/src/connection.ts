import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from "ioredis";

/** A connection to Redis: one server, or a Redis Cluster (the commands the relay uses are the same). */
export type Redis = SingleRedis | Cluster;

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is: a URL alone, or the configuration's pair, where cluster seeds (when any) win and
 * the URL only lends its credentials and TLS to every node of the cluster.
 */
export type RedisTarget = string | { redisUrl: string; redisClusterNodes: readonly RedisNode[] };

/**
 * Redis connections for BullMQ. Workers block on Redis and must retry forever
 * (`maxRetriesPerRequest: null`, BullMQ's requirement); producers on a request path fail fast
 * instead, so an HTTP request gets an answer while Redis is down rather than hanging.
 */
export function createRedis(target: RedisTarget, role: "worker" | "producer"): Redis {
  const options: RedisOptions =
    role === "worker"
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 5000 };
  if (typeof target === "string" || target.redisClusterNodes.length === 0) {
    return new SingleRedis(typeof target === "string" ? target : target.redisUrl, { ...options, lazyConnect: false });
  }
  return new Cluster(
    target.redisClusterNodes.map((n) => ({ host: n.host, port: n.port })),
    clusterOptions(target.redisUrl, options),
  );
}

/**
 * The role's options for every node, and for the cluster as a whole (ioredis takes the offline
 * queue only there). During a failover (a master lost, its replica not yet promoted) the cluster
 * answers CLUSTERDOWN, refuses connections to the lost node, then moves its slots; the client
 * retries after these delays and refreshes its slot map, so work waits for the new master
 * (faults/redis-failover.faults.test.ts) instead of failing.
 */
function clusterOptions(url: string, options: RedisOptions): ClusterOptions {
  const { enableOfflineQueue, ...nodeOptions } = options;
  return {
    redisOptions: { ...nodeOptions, ...credentialsOf(url) },
    enableOfflineQueue: enableOfflineQueue ?? true,
    enableReadyCheck: true,
    lazyConnect: false,
    // Ask for the new slot owners soon after a node goes away, and retry the command meanwhile.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2000,
  };
}

/** REDIS_URL's user, password and TLS apply to every cluster node (they share one ACL set-up). */
function credentialsOf(url: string): Pick<RedisOptions, "username" | "password" | "tls"> {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * A second connection to the same Redis with some options changed (a blocking reader beside a
 * producer). On a cluster, the queue-wide options (offline queue) apply to the cluster and the
 * rest to each node.
 */
export function duplicateRedis(redis: Redis, options: RedisOptions): Redis {
  if (!(redis instanceof Cluster)) return redis.duplicate(options);
  const { enableOfflineQueue, ...nodeOptions } = options;
  return redis.duplicate([], { ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }), redisOptions: nodeOptions });
}

/** Resolves once the connection is ready (a producer refuses commands before that). */
export async function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
    };
    redis.on("ready", onReady);
  });
}
