import { z } from "zod";
import { common, toCommon, type CommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import { custodyFields, toCustodyConfig, type CustodyConfig } from "./custody";
import { databaseUrl, kekFields, logLevel, toKeyEncryptionConfig, toWebhookKeyring, webhookKeyFields, type KeyEncryptionConfig } from "./fields";

const cliSchema = z.object({ ...common, ...kekFields });
const cliCustodySchema = z.object(custodyFields);
const cliReadOnlySchema = z.object(common);

export interface CliConfig extends CommonConfig {
  /** Absent when the command does not need to encrypt or decrypt keys. */
  kek: KeyEncryptionConfig | undefined;
}

/** The admin CLI needs the KEK only for commands that create or import wallets. */
export function loadCliConfig(options: { needsKek: boolean }, env: Env = process.env): Readonly<CliConfig> {
  if (options.needsKek) {
    const v = parseEnv(cliSchema, env);
    return Object.freeze({ ...toCommon(v), kek: toKeyEncryptionConfig(v) });
  }
  return Object.freeze({ ...toCommon(parseEnv(cliReadOnlySchema, env)), kek: undefined });
}

const cliWebhookKeySchema = z.object(webhookKeyFields);

/** The webhook secrets' keyring, for `relay webhooks reseal` (the same WEBHOOK_SECRET_KEY* as the gateway and webhook workers). */
export function loadCliWebhookKeyring(env: Env = process.env): Readonly<KeyEncryptionConfig> {
  return toWebhookKeyring(parseEnv(cliWebhookKeySchema, env));
}

const migrateSchema = z.object({ LOG_LEVEL: logLevel, DATABASE_URL: databaseUrl });

export function loadMigrateConfig(env: Env = process.env): Readonly<{ databaseUrl: string; logLevel: string }> {
  const v = parseEnv(migrateSchema, env);
  return Object.freeze({ databaseUrl: v.DATABASE_URL, logLevel: v.LOG_LEVEL });
}

/** HSM and KMS settings, for `wallets create --backend hsm|kms` (the only commands that talk to them). */
export function loadCliCustodyConfig(env: Env = process.env): Readonly<CustodyConfig> {
  return Object.freeze(toCustodyConfig(parseEnv(cliCustodySchema, env)));
}
