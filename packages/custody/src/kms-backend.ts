import { CreateKeyCommand, GetPublicKeyCommand, SignCommand, type KMSClient } from "@aws-sdk/client-kms";
import { AppError, toError } from "@relay/core";
import type { ExternalKeyBackend } from "./backends";
import { addressOfPoint, decodeEcdsaSignature, decodeSpkiPoint } from "./der";
import { toRecoverable } from "./recoverable-signature";

/** An AWS failure as an AppError: throttling and 5xx can pass, the rest (access, a disabled key) cannot. */
const kmsError = (what: string, e: unknown): AppError => {
  const error = toError(e) as Error & { $fault?: string; $retryable?: unknown; name: string };
  const retryable = error.$fault === "server" || error.$retryable !== undefined || error.name === "ThrottlingException";
  return new AppError(retryable ? "UNAVAILABLE" : "CONFIG", `KMS: ${what} failed (${error.name}: ${error.message})`, { retryable, cause: e });
};

const addressOfKey = async (client: KMSClient, keyId: string): Promise<string> => {
  let der: Uint8Array | undefined;
  try {
    der = (await client.send(new GetPublicKeyCommand({ KeyId: keyId }))).PublicKey;
  } catch (e) {
    throw kmsError(`reading the public key of ${keyId}`, e);
  }
  if (!der) throw new AppError("CRYPTO", `KMS: no public key for ${keyId}`);
  return addressOfPoint(decodeSpkiPoint(der));
};

/**
 * Keys generated and used inside AWS KMS (ECC_SECG_P256K1, SIGN_VERIFY): KMS signs a digest and
 * answers DER; the relay keeps the key's ARN and address only. The client is the caller's (the
 * SDK's default credential chain in the apps, the SDK's client mock in tests).
 */
export function createKmsBackend(client: KMSClient): ExternalKeyBackend {
  return {
    createKey: async () => {
      let arn: string | undefined;
      try {
        const created = await client.send(
          new CreateKeyCommand({ KeySpec: "ECC_SECG_P256K1", KeyUsage: "SIGN_VERIFY", Description: "relay wallet key (Ethereum, secp256k1)" }),
        );
        arn = created.KeyMetadata?.Arn;
      } catch (e) {
        throw kmsError("creating a ECC_SECG_P256K1 key", e);
      }
      if (!arn) throw new AppError("CRYPTO", "KMS: CreateKey answered no key ARN");
      return { address: await addressOfKey(client, arn), keyRef: arn };
    },

    signerFor: async ({ id: walletId, address, keyRef }) => {
      if ((await addressOfKey(client, keyRef)) !== address) {
        throw new AppError("CRYPTO", `KMS: key ${keyRef} is not wallet ${walletId}'s (${address})`);
      }
      return {
        signDigest: async (digest) => {
          let der: Uint8Array | undefined;
          try {
            der = (
              await client.send(new SignCommand({ KeyId: keyRef, Message: digest, MessageType: "DIGEST", SigningAlgorithm: "ECDSA_SHA_256" }))
            ).Signature;
          } catch (e) {
            throw kmsError(`signing with the key of wallet ${walletId}`, e);
          }
          if (!der) throw new AppError("CRYPTO", `KMS: Sign answered no signature for ${keyRef}`);
          const { r, s } = decodeEcdsaSignature(der);
          return toRecoverable(digest, r, s, address);
        },
      };
    },

    close: async () => client.destroy(),
  };
}
