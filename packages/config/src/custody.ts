import { z } from "zod";
import { ConfigError } from "./load";
import { positiveInt } from "./fields";

/**
 * Custody backends beside the local keys (docs/custody.md): a PKCS#11 token (all three HSM_
 * variables, or none) and AWS KMS (a region; credentials from the AWS SDK's default chain, never
 * from here). A backend left unset is not configured: its wallets are refused with a message that
 * names these variables.
 */
export const custodyFields = {
  HSM_PKCS11_LIBRARY: z.string().optional(),
  HSM_TOKEN_LABEL: z.string().optional(),
  HSM_PIN: z.string().optional(),
  HSM_SESSIONS: positiveInt(4),
  KMS_REGION: z.string().regex(/^[a-z0-9-]{1,32}$/, "must be an AWS region such as eu-west-1").optional(),
  KMS_ENDPOINT: z.url("must be an http(s) URL").optional(),
};

export interface CustodyConfig {
  /** Absent: no HSM configured. `pin` is a secret (redacted from logs). */
  hsm?: { library: string; tokenLabel: string; pin: string; sessions: number };
  /** Absent: no KMS configured. `endpoint`: a KMS-compatible endpoint (LocalStack) instead of AWS's. */
  kms?: { region: string; endpoint?: string };
}

const HSM_NAMES = ["HSM_PKCS11_LIBRARY", "HSM_TOKEN_LABEL", "HSM_PIN"] as const;

export function toCustodyConfig(v: {
  HSM_PKCS11_LIBRARY?: string | undefined;
  HSM_TOKEN_LABEL?: string | undefined;
  HSM_PIN?: string | undefined;
  HSM_SESSIONS: number;
  KMS_REGION?: string | undefined;
  KMS_ENDPOINT?: string | undefined;
}): CustodyConfig {
  const set = HSM_NAMES.filter((name) => v[name] !== undefined);
  if (set.length > 0 && set.length < HSM_NAMES.length) {
    const missing = HSM_NAMES.filter((name) => v[name] === undefined);
    throw new ConfigError(`Invalid configuration:\n  ${missing.join(", ")} (unset): an HSM needs ${HSM_NAMES.join(", ")} together (${set.join(", ")} set)`);
  }
  return {
    ...(v.HSM_PKCS11_LIBRARY && v.HSM_TOKEN_LABEL && v.HSM_PIN
      ? { hsm: { library: v.HSM_PKCS11_LIBRARY, tokenLabel: v.HSM_TOKEN_LABEL, pin: v.HSM_PIN, sessions: v.HSM_SESSIONS } }
      : {}),
    ...(v.KMS_REGION ? { kms: { region: v.KMS_REGION, ...(v.KMS_ENDPOINT ? { endpoint: v.KMS_ENDPOINT } : {}) } } : {}),
  };
}
