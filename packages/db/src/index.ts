export { createDatabase } from "./client";
export type { Database, DatabaseSettings } from "./client";
export * from "./repositories/project.repository";
export * from "./repositories/api-key.repository";
export * from "./repositories/chain.repository";
export * from "./repositories/wallet.repository";
export * from "./repositories/signature.repository";
