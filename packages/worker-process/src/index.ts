export { runWorkerProcess } from "./worker-process";
export type { WorkerApp, WorkerProcessConfig, WorkerProcessDeps } from "./worker-process";
