import { STALLED_EXIT_CODE } from "@relay/core";
import { createDatabase, createPool, type Database } from "@relay/db";
import {
  addChain,
  createProcessGroup,
  createProjectFixture,
  deployRecorder,
  freePort,
  fund,
  startAnvil,
  startPrivateRedis,
  startRedisCluster,
  testDatabaseUrl,
  testKek,
  testQueuePrefix,
  type AnvilInstance,
  type AppProcess,
  type DeployedRecorder,
  type PrivateRedis,
  type TestRedisCluster,
  type ProcessGroup,
  type ProjectFixture,
} from "@relay/testing";
import { startReceiver, type FaultReceiver } from "./receiver";

export type Pool = ReturnType<typeof createPool>;
export type WorkerKind = "signing" | "tx" | "webhook";

/**
 * Settings that let a scenario finish in seconds instead of production's minutes: a killed
 * worker's jobs come back after ~2 s (lock), RPC calls give up after 2 s, webhook retries are
 * quick and many (a receiver that flaps for a while still gets every event), and the reconcilers
 * look for lost work after 5 s of silence instead of a minute.
 */
export const WORKER_ENV: Record<WorkerKind, Record<string, string>> = {
  tx: { TX_CONCURRENCY: "8", TX_JOB_LOCK_MS: "2000", RPC_TIMEOUT_MS: "2000", TX_RECONCILE_AFTER_MS: "5000" },
  signing: { SIGNING_CONCURRENCY: "8" },
  webhook: {
    WEBHOOK_CONCURRENCY: "8",
    WEBHOOK_JOB_LOCK_MS: "2000",
    WEBHOOK_RECONCILE_AFTER_MS: "5000",
    WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 40 }, () => "500ms").join(","),
  },
};
export const GATEWAY_ENV = { SIGN_TIMEOUT_MS: "5000", RATE_LIMIT_PER_MINUTE: "100000", DATABASE_QUERY_TIMEOUT_MS: "3000" };

export interface Stack {
  name: string;
  anvil: AnvilInstance;
  recorder: DeployedRecorder;
  redis: PrivateRedis;
  /** The Redis Cluster the apps use instead of `redis`, when the scenario asked for one. */
  cluster: TestRedisCluster | undefined;
  /** QUEUE_PREFIX of every app of the stack. */
  queuePrefix: string;
  pool: Pool;
  db: Database;
  project: ProjectFixture;
  group: ProcessGroup;
  gatewayUrl: string;
  gateway: AppProcess;
  workers: Record<WorkerKind, AppProcess>;
  receiver: FaultReceiver;
  /** SIGKILLs a worker (if still running) and starts a new one of the same kind. */
  restartWorker(kind: WorkerKind): Promise<AppProcess>;
  /** SIGKILLs the gateway and starts a new one on the same port (`gatewayUrl` stays valid). */
  restartGateway(): Promise<AppProcess>;
  /** Every app process started so far, for error messages. */
  processes: AppProcess[];
  /**
   * Workers that stopped themselves with STALLED_EXIT_CODE and were started again, as a
   * supervisor (npm start, Compose, Kubernetes) does: "<kind> at <ISO time>".
   */
  supervisorRestarts: string[];
  stop(): Promise<void>;
}

export interface StackOptions {
  name: string;
  chainId: number;
  /** The RPC URL the workers use for the chain (e.g. a fault-injecting proxy); default anvil's own. */
  rpcUrlFor?: (anvilUrl: string) => Promise<string>;
  wallets?: number;
  workerEnv?: Partial<Record<WorkerKind, Record<string, string>>>;
  /** Added to the gateway's environment (GATEWAY_ENV), at its start and every restart. */
  gatewayEnv?: Record<string, string>;
  /**
   * Mine a block every this many seconds, as a real chain does, instead of one per transaction:
   * a wallet's transactions then wait for a block together and run on what the ones before them
   * leave (the load's calls cost different gas depending on the call before).
   */
  blockTimeSeconds?: number;
  /** Run the apps on a private Redis Cluster (three masters, three replicas) with a `{…}` prefix. */
  redisCluster?: { nodeTimeoutMs: number };
}

/**
 * One scenario's system: anvil with the Recorder contract, a private Redis, the run's database on
 * the private Postgres, a funded project, a loopback receiver, and the gateway and the three
 * workers as separate processes configured through the environment only.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const kek = testKek();
  const anvil = await startAnvil({ chainId: options.chainId, ...(options.blockTimeSeconds === undefined ? {} : { blockTime: options.blockTimeSeconds }) });
  const recorder = await deployRecorder(anvil.rpcUrl);
  const redis = await startPrivateRedis(await freePort());
  const cluster = options.redisCluster ? await startRedisCluster(options.redisCluster) : undefined;
  const pool = createPool({ url: testDatabaseUrl(), poolSize: 4 });
  const db = createDatabase({ pool });
  await addChain(db, { ...anvil, rpcUrl: options.rpcUrlFor ? await options.rpcUrlFor(anvil.rpcUrl) : anvil.rpcUrl });
  const project = await createProjectFixture(db, kek, { wallets: options.wallets ?? 3 });
  await fund(anvil.rpcUrl, project.wallets.map((w) => w.address));
  const receiver = await startReceiver();

  // A hash tag on a cluster, or the apps refuse to start.
  const queuePrefix = testQueuePrefix(options.name, { hashTag: cluster !== undefined });
  const group = createProcessGroup({
    databaseUrl: testDatabaseUrl(),
    queuePrefix,
    kek,
    redisUrl: redis.url,
    ...(cluster ? { redisClusterNodes: cluster.nodes } : {}),
  });
  const processes: AppProcess[] = [];
  const workers = {} as Record<WorkerKind, AppProcess>;
  const supervisorRestarts: string[] = [];
  let stopping = false;
  const generation: Record<WorkerKind, number> = { signing: 0, tx: 0, webhook: 0 };
  const startWorker = async (kind: WorkerKind) => {
    const name = `${kind}-worker-${++generation[kind]}`;
    const env = { ...WORKER_ENV[kind], ...options.workerEnv?.[kind] };
    const proc = await group.startWorker(`${kind}-worker`, name, { env });
    processes.push(proc);
    workers[kind] = proc;
    // A worker that stops itself as stalled is started again, as its supervisor would.
    void proc.exited.then(({ code }) => {
      if (code !== STALLED_EXIT_CODE || stopping || workers[kind] !== proc) return;
      supervisorRestarts.push(`${kind} at ${new Date().toISOString()}`);
      return startWorker(kind);
    });
    return proc;
  };

  const gatewayEnv = { ...GATEWAY_ENV, ...options.gatewayEnv };
  const gateway = await group.startGateway({ env: gatewayEnv });
  processes.push(gateway.process);
  const gatewayPort = Number(new URL(gateway.url).port);
  await Promise.all([startWorker("signing"), startWorker("tx"), startWorker("webhook")]);

  const stack: Stack = {
    name: options.name,
    anvil,
    recorder,
    redis,
    cluster,
    queuePrefix,
    pool,
    db,
    project,
    group,
    gatewayUrl: gateway.url,
    gateway: gateway.process,
    workers,
    receiver,
    processes,
    supervisorRestarts,
    restartWorker: async (kind) => {
      workers[kind].kill("SIGKILL");
      await workers[kind].exited;
      workers[kind] = await startWorker(kind);
      return workers[kind];
    },
    restartGateway: async () => {
      stack.gateway.kill("SIGKILL");
      await stack.gateway.exited;
      const next = await group.startGateway({ env: gatewayEnv, port: gatewayPort, name: `gateway-${processes.length}` });
      processes.push(next.process);
      stack.gateway = next.process;
      return next.process;
    },
    stop: async () => {
      stopping = true;
      await group.stopAll();
      await receiver.close();
      await redis.stop();
      await cluster?.stop();
      await db.$disconnect().catch(() => undefined);
      if (!pool.ended) await pool.end().catch(() => undefined);
      recorder.provider.destroy();
      await anvil.stop();
    },
  };
  return stack;
}
