export { createTxWorker } from "./worker";
export type { TxWorkerDeps } from "./worker";
/** Which wallet a transaction prefers (tests pick transaction ids by it). */
export { walletOrder } from "./lifecycle/wallet-choice";
