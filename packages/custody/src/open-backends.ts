import { KMSClient } from "@aws-sdk/client-kms";
import type { ExternalKeyBackend } from "./backends";
import { createKmsBackend } from "./kms-backend";
import { openPkcs11Backend, type Pkcs11Settings } from "./pkcs11-backend";

export interface CustodySettings {
  hsm?: Pkcs11Settings;
  /** Credentials come from the AWS SDK's default chain (environment, profile, instance role). */
  kms?: { region: string; endpoint?: string };
}

export interface CustodyBackends {
  hsm?: ExternalKeyBackend;
  kms?: ExternalKeyBackend;
  close(): Promise<void>;
}

/** The HSM and KMS backends a process is configured for (none, one or both), opened once at start. */
export function openCustodyBackends(settings: CustodySettings): CustodyBackends {
  const hsm = settings.hsm && openPkcs11Backend(settings.hsm);
  const kms = settings.kms && createKmsBackend(new KMSClient({ region: settings.kms.region, ...(settings.kms.endpoint ? { endpoint: settings.kms.endpoint } : {}) }));
  return {
    ...(hsm ? { hsm } : {}),
    ...(kms ? { kms } : {}),
    close: async () => {
      await Promise.all([hsm?.close(), kms?.close()]);
    },
  };
}

/** The backends a process can use, for its start-up log line (LOCAL always). */
export const custodyNames = (backends: Pick<CustodyBackends, "hsm" | "kms">): string[] => ["LOCAL", ...(backends.hsm ? ["HSM"] : []), ...(backends.kms ? ["KMS"] : [])];
