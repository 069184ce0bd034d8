import { createRequire } from "node:module";
import { JsonRpcProvider, Network, parseEther, toBeHex } from "ethers";
import { createChainRepository, type Database } from "@relay/db";
import { deleteRedisKeys, type AnvilInstance } from "@relay/testing";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Command-line patterns for lib/cpu.ts. Postgres renames each backend
 * `postgres: <cluster>: <user> <database> <client> <state>`: counting only the backends of the
 * benchmark's own database leaves out whatever else runs on this shared server; the WAL writer,
 * checkpointer and background writer serve every database and are counted apart.
 */
export const postgresBackendsOf = (database: string) => new RegExp(`^postgres: (?:[^:]+: )?\\S+ ${escapeRegExp(database)} `);
export const postgresBackground = /^postgres: (?:[^:]+: )?(?:walwriter|checkpointer|background writer)/;
/** Both: what Postgres spends on the benchmark's database, its share of the shared writers included. */
export const postgresOf = (database: string) => new RegExp(`${postgresBackendsOf(database).source}|${postgresBackground.source}`);

/** Registers an anvil node as a chain of the relay, with timings that match its block time. */
export async function registerChain(db: Database, anvil: AnvilInstance, blockTimeMs: number, stuckAfterSeconds = 120) {
  await createChainRepository(db).upsert({
    chainId: BigInt(anvil.chainId),
    name: `bench anvil ${anvil.chainId}`,
    rpcUrls: [anvil.rpcUrl],
    confirmations: 1,
    lowBalanceThresholdWei: 0n,
    blockTimeMs,
    stuckAfterSeconds,
  });
}

export function benchProvider(anvil: AnvilInstance): JsonRpcProvider {
  const network = Network.from(anvil.chainId);
  return new JsonRpcProvider(anvil.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
}

/** Gives each address `eth` ether with anvil_setBalance. */
export async function fund(anvil: AnvilInstance, addresses: string[], eth = "1000") {
  const provider = benchProvider(anvil);
  try {
    await Promise.all(addresses.map((a) => provider.send("anvil_setBalance", [a, toBeHex(parseEther(eth))])));
  } finally {
    provider.destroy();
  }
}

/**
 * A client of the Redis the apps use (REDIS_URL, as they read it). ioredis is a dependency of
 * @relay/testing, not of the benchmarks: it is loaded from there.
 */
async function withRedis<T>(use: (redis: Parameters<typeof deleteRedisKeys>[0]) => Promise<T>): Promise<T> {
  type Redis = Parameters<typeof deleteRedisKeys>[0];
  const load = createRequire(require.resolve("@relay/testing/package.json"));
  const { Redis: RedisClient } = load("ioredis") as { Redis: new (url: string) => Redis };
  const redis = new RedisClient(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  try {
    return await use(redis);
  } finally {
    await redis.quit().catch(() => undefined);
  }
}

/** Deletes the benchmark's BullMQ keys. */
export const deleteQueueKeys = (prefix: string): Promise<number> => withRedis((redis) => deleteRedisKeys(redis, prefix));

/**
 * The process id of the redis-server the apps use, from its own INFO: other Redis servers (test
 * clusters, private instances) may run on this machine, and only this one serves the run.
 */
export const redisServerPid = (): Promise<number> =>
  withRedis(async (redis) => {
    const pid = /process_id:(\d+)/.exec(await redis.info("server"))?.[1];
    if (!pid) throw new Error("Redis INFO server has no process_id");
    return Number(pid);
  });

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
