export { jobCatalog, jobIdOf, jobSchedules } from "./catalog";
export type { JobName, JobPayload } from "./catalog";
export { createRedis, redisReady } from "./connection";
export type { Redis } from "./connection";
export { createProducer, createResultWaiter } from "./producer";
export type { Job } from "bullmq";
export type { Producer, QueueSettings, ResultWaiter } from "./producer";
export { createTypedWorker, RunAgain, runAgainIn, workerGroup } from "./worker";
export type { Processor, WorkerGroup, WorkerSettings } from "./worker";
