export { createSigningWorker, scheduleSigningJobs } from "./worker";
export type { SigningWorkerDeps } from "./worker";
export { createPersonalSignProcessor } from "./processors/personal-sign.processor";
export type { PersonalSignResult } from "./processors/personal-sign.processor";
