export { jobCatalog, jobIdOf } from "./catalog";
export type { JobName, JobPayload } from "./catalog";
export { createRedis, redisReady } from "./connection";
export type { Redis } from "./connection";
export { createProducer, createResultWaiter } from "./producer";
export type { Job } from "bullmq";
export type { Producer, QueueSettings, ResultWaiter } from "./producer";
export { createTypedWorker } from "./worker";
export type { Processor, WorkerSettings } from "./worker";
