export { createTxWorker } from "./worker";
export type { TxWorkerDeps } from "./worker";
