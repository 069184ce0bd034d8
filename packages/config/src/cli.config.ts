import { z } from "zod";
import { common, toCommon, type CommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import { custodyFields, toCustodyConfig, type CustodyConfig } from "./custody";
import { databasePooler, databaseUrl, kekFields, logLevel, toKeyEncryptionConfig, toWebhookKeyring, webhookKeyFields, type KeyEncryptionConfig } from "./fields";

/** Who the audit log names as the operator of a command (docs/audit.md); unset: the OS user. */
const operatorField = { RELAY_OPERATOR: z.string().trim().min(1).max(200).optional() };
const cliSchema = z.object({ ...common, ...kekFields, ...operatorField });
const cliCustodySchema = z.object(custodyFields);
const cliReadOnlySchema = z.object({ ...common, ...operatorField });

export interface CliConfig extends CommonConfig {
  /** Absent when the command does not need to encrypt or decrypt keys. */
  kek: KeyEncryptionConfig | undefined;
  /** RELAY_OPERATOR: the name the audit log gives this operator; absent: the OS user's name. */
  operator: string | undefined;
}

/** The admin CLI needs the KEK only for commands that create or import wallets. */
export function loadCliConfig(options: { needsKek: boolean }, env: Env = process.env): Readonly<CliConfig> {
  if (options.needsKek) {
    const v = parseEnv(cliSchema, env);
    return Object.freeze({ ...toCommon(v), kek: toKeyEncryptionConfig(v), operator: v.RELAY_OPERATOR });
  }
  const v = parseEnv(cliReadOnlySchema, env);
  return Object.freeze({ ...toCommon(v), kek: undefined, operator: v.RELAY_OPERATOR });
}

const cliWebhookKeySchema = z.object(webhookKeyFields);

/** The webhook secrets' keyring, for `relay webhooks reseal` (the same WEBHOOK_SECRET_KEY* as the gateway and webhook workers). */
export function loadCliWebhookKeyring(env: Env = process.env): Readonly<KeyEncryptionConfig> {
  return toWebhookKeyring(parseEnv(cliWebhookKeySchema, env));
}

// Migrations hold a session advisory lock and SET lock_timeout on their connection: both need one
// server session for the whole run, which a transaction pooler does not give.
const migrateSchema = z.object({
  LOG_LEVEL: logLevel,
  DATABASE_URL: databaseUrl,
  DATABASE_POOLER: databasePooler.refine(
    (v) => v === "none",
    "migrations need a session of their own: run them with DATABASE_URL pointing at Postgres itself (not the pooler) and DATABASE_POOLER unset",
  ),
});

export function loadMigrateConfig(env: Env = process.env): Readonly<{ databaseUrl: string; logLevel: string }> {
  const v = parseEnv(migrateSchema, env);
  return Object.freeze({ databaseUrl: v.DATABASE_URL, logLevel: v.LOG_LEVEL });
}

/** HSM and KMS settings, for `wallets create --backend hsm|kms` (the only commands that talk to them). */
export function loadCliCustodyConfig(env: Env = process.env): Readonly<CustodyConfig> {
  return Object.freeze(toCustodyConfig(parseEnv(cliCustodySchema, env)));
}
