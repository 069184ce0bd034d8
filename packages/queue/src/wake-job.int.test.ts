import { randomUUID } from "node:crypto";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { jobCatalog, jobIdOf } from "./catalog";
import { createRedis } from "./connection";
import { createProducer } from "./producer";
import { wakeJob } from "./wake-job";
import { createLogger } from "@relay/core";
import { createTypedWorker, runAgainIn } from "./worker";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("wakeJob", () => {
  const redis = createRedis(redisUrl, "worker");
  const prefix = testQueuePrefix("wake-job");
  const producer = createProducer({ connection: redis, prefix });
  const queue = producer.queue("processTransaction");

  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  test("a job waiting out a delay is made due now, the same job", async () => {
    const payload = { v: 1 as const, projectId: randomUUID(), transactionId: randomUUID() };
    const id = jobIdOf("processTransaction", payload);
    await queue.add("processTransaction", payload, { ...jobCatalog.processTransaction.options, jobId: id, delay: 3_600_000 });
    expect(await (await queue.getJob(id))!.getState()).toBe("delayed");

    await wakeJob(producer, "processTransaction", payload);

    expect(await (await queue.getJob(id))!.getState()).toBe("waiting");
  });

  test("a lost job is added again; a waiting one is left as it is", async () => {
    const payload = { v: 1 as const, projectId: randomUUID(), transactionId: randomUUID() };
    const id = jobIdOf("processTransaction", payload);
    expect(await queue.getJob(id)).toBeUndefined();
    await wakeJob(producer, "processTransaction", payload);
    const job = await queue.getJob(id);
    expect(await job!.getState()).toBe("waiting");
    await wakeJob(producer, "processTransaction", payload);
    expect((await queue.getJob(id))!.timestamp).toBe(job!.timestamp);
  });

  /**
   * A followBlocks job running now, in a worker whose every run decides to sleep an hour and puts
   * itself back 300 ms later (as a block follower does after its look found nothing).
   */
  async function runningSleeper(chainBase: number) {
    const payload = { v: 1 as const, chainId: String(chainBase + Math.floor(Math.random() * 1000)) };
    let runs = 0;
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const worker = createTypedWorker(
      "followBlocks",
      async () => {
        runs++;
        running();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return runAgainIn(3_600_000);
      },
      { connection: redis, prefix, concurrency: 1, logger: createLogger({ name: "wake-job-test", level: "silent" }) },
    );
    await producer.enqueue("followBlocks", payload);
    await started;
    const state = async () => (await producer.queue("followBlocks").getJob(jobIdOf("followBlocks", payload)))!.getState();
    return { payload, runs: () => runs, state, close: () => worker.close(true) };
  }

  test("with activeGraceMs, a running job that then puts itself back to wait out a delay is made due once delayed", async () => {
    const sleeper = await runningSleeper(40_000);
    try {
      expect(await sleeper.state()).toBe("active");
      await wakeJob(producer, "followBlocks", sleeper.payload, { activeGraceMs: 2_000 });
      for (const deadline = Date.now() + 5_000; sleeper.runs() < 2 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(sleeper.runs()).toBe(2);
    } finally {
      await sleeper.close();
    }
  });

  test("without activeGraceMs, a running job is left as it is", async () => {
    const sleeper = await runningSleeper(41_000);
    try {
      await wakeJob(producer, "followBlocks", sleeper.payload);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await sleeper.state()).toBe("delayed");
      expect(sleeper.runs()).toBe(1);
    } finally {
      await sleeper.close();
    }
  });
});
