import { createProducer, createRedis, jobCatalog, jobIdOf } from "@relay/queue";
import { deleteRedisKeys, testQueuePrefix } from "@relay/testing";
import { createFollowerSleep } from "./follower-sleep";
import { createFollowerWatch } from "./follower-watch";

/**
 * What a transaction's job does for its chain's block follower (follower-watch.ts), against a real
 * Redis: an asleep follower is woken, an awake one left to its cadence, a lost one revived.
 */
describe("follower watch", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "worker");
  const prefix = testQueuePrefix("follower-watch");
  const producer = createProducer({ connection: redis, prefix });
  const sleep = createFollowerSleep(redis, prefix);
  const followers = producer.queue("followBlocks");
  let chain = 50_000n + BigInt(Math.floor(Math.random() * 1000));
  const delayedFollower = async (chainId: bigint) => {
    const payload = { v: 1 as const, chainId: chainId.toString() };
    const id = jobIdOf("followBlocks", payload);
    await followers.add("followBlocks", payload, { ...jobCatalog.followBlocks.options, jobId: id, delay: 3_600_000 });
    return id;
  };
  const stateOf = async (id: string) => (await followers.getJob(id))?.getState();

  afterAll(async () => {
    await producer.close();
    await deleteRedisKeys(redis, prefix);
    await redis.quit();
  });

  it("wakes a follower marked asleep: its job is due now and the mark is gone", async () => {
    const chainId = chain++;
    const id = await delayedFollower(chainId);
    await sleep.mark(chainId, 60_000);
    await createFollowerWatch({ producer, sleep, now: Date.now }).ensure(chainId);
    expect(await stateOf(id)).toBe("waiting");
    expect(await sleep.clear(chainId)).toBe(false);
  });

  it("leaves an awake follower waiting out its delay between passes", async () => {
    const chainId = chain++;
    const id = await delayedFollower(chainId);
    await createFollowerWatch({ producer, sleep, now: Date.now }).ensure(chainId);
    expect(await stateOf(id)).toBe("delayed");
  });

  it("revives a follower whose job is lost", async () => {
    const chainId = chain++;
    const id = jobIdOf("followBlocks", { v: 1, chainId: chainId.toString() });
    expect(await stateOf(id)).toBeUndefined();
    await createFollowerWatch({ producer, sleep, now: Date.now }).ensure(chainId);
    expect(await stateOf(id)).toBe("waiting");
  });

  it("looks at Redis for a chain at most once per period in a process: a mark set just after a look waits for the next", async () => {
    const chainId = chain++;
    const id = await delayedFollower(chainId);
    let clock = 1_000_000;
    const watch = createFollowerWatch({ producer, sleep, now: () => clock });
    await watch.ensure(chainId);
    await sleep.mark(chainId, 60_000);
    await watch.ensure(chainId);
    expect(await stateOf(id)).toBe("delayed");
    clock += 200;
    await watch.ensure(chainId);
    expect(await stateOf(id)).toBe("waiting");
  });
});
