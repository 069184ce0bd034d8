/**
 * Where a wallet's key is kept (docs/custody.md): LOCAL sealed in the database under the
 * key-encryption key, HSM in a PKCS#11 token, KMS in AWS KMS. The one list: the database enum,
 * the job payload and the HTTP and CLI inputs are held to it.
 */
export const CUSTODY_BACKENDS = ["LOCAL", "HSM", "KMS"] as const;
export type CustodyBackendName = (typeof CUSTODY_BACKENDS)[number];
