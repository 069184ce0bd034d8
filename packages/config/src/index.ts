export { ConfigError, parseEnv } from "./load";
export type { Env } from "./load";
export type { KeyEncryptionConfig } from "./fields";
export { loadCliConfig, loadGatewayConfig, loadMigrateConfig, loadSigningWorkerConfig, loadTxWorkerConfig, loadWebhookWorkerConfig } from "./apps";
export type { CliConfig, GatewayConfig, SigningWorkerConfig, TxWorkerConfig, WebhookWorkerConfig } from "./apps";
