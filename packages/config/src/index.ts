export { ConfigError, parseEnv } from "./load";
export type { Env } from "./load";
export type { KeyEncryptionConfig } from "./fields";
export { loadCliConfig, loadGatewayConfig, loadMigrateConfig, loadSigningWorkerConfig, loadTxWorkerConfig } from "./apps";
export type { CliConfig, GatewayConfig, SigningWorkerConfig, TxWorkerConfig } from "./apps";
