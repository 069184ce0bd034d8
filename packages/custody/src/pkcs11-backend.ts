import { randomBytes } from "node:crypto";
import * as pkcs11js from "pkcs11js";
import { AppError, toError } from "@relay/core";
import type { ExternalKeyBackend } from "./backends";
import { addressOfPoint, decodeEcPoint } from "./der";
import { toRecoverable } from "./recoverable-signature";
import { createSessionPool } from "./session-pool";

export interface Pkcs11Settings {
  /** Path of the PKCS#11 module (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so). */
  library: string;
  tokenLabel: string;
  /** The token's user PIN: a secret, never logged nor put in an error. */
  pin: string;
  /** Sessions open at once, so as many signatures can run at once (default 4). */
  sessions?: number;
}

/** DER OID 1.3.132.0.10, secp256k1: the curve of CKM_EC_KEY_PAIR_GEN. */
export const SECP256K1_EC_PARAMS = Buffer.from("06052b8104000a", "hex");

const codeName = (code: number): string =>
  Object.entries(pkcs11js).find(([name, value]) => name.startsWith("CKR_") && value === code)?.[0] ?? `0x${code.toString(16)}`;

/** A PKCS#11 failure as an AppError, by its CKR_ name (a Cryptoki error carries no secret). */
const hsmError = (what: string, e: unknown, retryable: boolean): AppError => {
  const error = toError(e) as Error & { code?: unknown };
  const reason = error instanceof pkcs11js.Pkcs11Error && typeof error.code === "number" ? codeName(error.code) : error.message;
  return new AppError(retryable ? "UNAVAILABLE" : "CONFIG", `HSM: ${what} failed (${reason})`, { retryable, cause: e });
};

/**
 * Keys generated and used inside a PKCS#11 token: the private key is created sensitive and not
 * extractable, so it never leaves the token; the relay keeps its CKA_ID and address only.
 * One module load, one login and a few sessions per process: a PKCS#11 module is initialised
 * once per process, so a process opens one backend (a second fails with
 * CKR_CRYPTOKI_ALREADY_INITIALIZED until the first is closed).
 */
export function openPkcs11Backend(settings: Pkcs11Settings): ExternalKeyBackend {
  const p11 = new pkcs11js.PKCS11();
  try {
    p11.load(settings.library);
    // Signatures run on libuv's threads (C_SignAsync), several sessions at once: the module must lock.
    p11.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (e) {
    throw hsmError(`loading the PKCS#11 module ${settings.library}`, e, false);
  }
  const slot = p11
    .C_GetSlotList(true)
    .find((s) => p11.C_GetTokenInfo(s).label.trim() === settings.tokenLabel);
  if (slot === undefined) {
    p11.C_Finalize();
    throw new AppError("CONFIG", `HSM: no token labelled "${settings.tokenLabel}" in ${settings.library} (HSM_TOKEN_LABEL)`);
  }
  const sessions = Array.from({ length: settings.sessions ?? 4 }, () => p11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION));
  try {
    // A login is the application's, for every session it has with the token.
    p11.C_Login(sessions[0]!, pkcs11js.CKU_USER, settings.pin);
  } catch (e) {
    p11.C_CloseAllSessions(slot);
    p11.C_Finalize();
    throw hsmError(`logging in to token "${settings.tokenLabel}" (HSM_PIN)`, e, false);
  }
  const pool = createSessionPool(sessions);

  const findKey = (session: Buffer, keyClass: number, id: Buffer): Buffer | null => {
    p11.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: keyClass },
      { type: pkcs11js.CKA_ID, value: id },
    ]);
    try {
      return p11.C_FindObjects(session);
    } finally {
      p11.C_FindObjectsFinal(session);
    }
  };

  const addressOf = (session: Buffer, publicKey: Buffer): string => {
    const [point] = p11.C_GetAttributeValue(session, publicKey, [{ type: pkcs11js.CKA_EC_POINT }]);
    return addressOfPoint(decodeEcPoint(point!.value as Buffer));
  };

  return {
    createKey: () =>
      pool.use(async (session) => {
        const id = randomBytes(16);
        const label = `relay-${id.toString("hex")}`;
        const common = [
          { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_ID, value: id },
          { type: pkcs11js.CKA_LABEL, value: label },
        ];
        let keys: pkcs11js.KeyPair;
        try {
          keys = await p11.C_GenerateKeyPairAsync(
            session,
            { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
            [...common, { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY }, { type: pkcs11js.CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS }, { type: pkcs11js.CKA_VERIFY, value: true }],
            [
              ...common,
              { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
              { type: pkcs11js.CKA_PRIVATE, value: true },
              { type: pkcs11js.CKA_SENSITIVE, value: true },
              { type: pkcs11js.CKA_EXTRACTABLE, value: false },
              { type: pkcs11js.CKA_SIGN, value: true },
            ],
          );
        } catch (e) {
          throw hsmError("generating a secp256k1 key pair", e, true);
        }
        return { address: addressOf(session, keys.publicKey), keyRef: id.toString("hex") };
      }),

    signerFor: ({ id: walletId, address, keyRef }) =>
      pool.use((session) => {
        const id = Buffer.from(keyRef, "hex");
        const privateKey = findKey(session, pkcs11js.CKO_PRIVATE_KEY, id);
        const publicKey = findKey(session, pkcs11js.CKO_PUBLIC_KEY, id);
        if (!privateKey || !publicKey) {
          throw new AppError("CONFIG", `HSM: token "${settings.tokenLabel}" has no key with CKA_ID ${keyRef} (wallet ${walletId}): is HSM_TOKEN_LABEL the token the wallet was created in?`);
        }
        if (addressOf(session, publicKey) !== address) {
          throw new AppError("CRYPTO", `HSM: the key with CKA_ID ${keyRef} is not wallet ${walletId}'s (${address})`);
        }
        return {
          signDigest: async (digest) => {
            const rs = await pool.use(async (s) => {
              try {
                p11.C_SignInit(s, { mechanism: pkcs11js.CKM_ECDSA }, privateKey);
                return await p11.C_SignAsync(s, Buffer.from(digest), Buffer.alloc(64));
              } catch (e) {
                throw hsmError(`signing with the key of wallet ${walletId}`, e, true);
              }
            });
            if (rs.length !== 64) throw new AppError("CRYPTO", `HSM: a signature of ${rs.length} bytes, not r‖s (64)`);
            const big = (b: Buffer) => BigInt(`0x${b.toString("hex")}`);
            return toRecoverable(digest, big(rs.subarray(0, 32)), big(rs.subarray(32)), address);
          },
        };
      }),

    close: async () => {
      try {
        p11.C_Logout(sessions[0]!);
      } catch {
        // Already logged out (the token went away): closing goes on.
      }
      p11.C_CloseAllSessions(slot);
      p11.C_Finalize();
    },
  };
}
