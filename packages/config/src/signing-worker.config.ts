import { z } from "zod";
import { toWorkerCommon, workerCommon, type WorkerCommonConfig } from "./common";
import { parseEnv, type Env } from "./load";
import { custodyFields, toCustodyConfig, type CustodyConfig } from "./custody";
import { kekFields, positiveInt, toKeyEncryptionConfig, type KeyEncryptionConfig } from "./fields";

const signingWorkerSchema = z.object({
  ...workerCommon,
  ...kekFields,
  ...custodyFields,
  SIGNING_CONCURRENCY: positiveInt(64),
});

export interface SigningWorkerConfig extends WorkerCommonConfig {
  kek: KeyEncryptionConfig;
  /** HSM and KMS settings, for wallets whose key one of them keeps. */
  custody: CustodyConfig;
  concurrency: number;
}

export function loadSigningWorkerConfig(env: Env = process.env): Readonly<SigningWorkerConfig> {
  const v = parseEnv(signingWorkerSchema, env);
  return Object.freeze({ ...toWorkerCommon(v), kek: toKeyEncryptionConfig(v), custody: toCustodyConfig(v), concurrency: v.SIGNING_CONCURRENCY });
}
