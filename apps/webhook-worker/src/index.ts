export { createWebhookWorker } from "./worker";
export type { WebhookWorkerDeps } from "./worker";
