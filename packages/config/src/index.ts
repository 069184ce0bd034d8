export { ConfigError, parseEnv } from "./load";
export { DEV_KEY_FILES } from "./dev-keys";
export type { DevKeyVariable } from "./dev-keys";
export type { Env } from "./load";
export type { KeyEncryptionConfig, WorkerMetricsConfig } from "./fields";
export { loadCliConfig, loadCliWebhookKeyring, loadGatewayConfig, loadMigrateConfig, loadSigningWorkerConfig, loadTxWorkerConfig, loadWebhookWorkerConfig } from "./apps";
export type { CliConfig, GatewayConfig, SigningWorkerConfig, TxWorkerConfig, WebhookWorkerConfig } from "./apps";
