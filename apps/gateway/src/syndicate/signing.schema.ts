import { z } from "zod";
import { evmAddress, omittable, uuid } from "../http-schemas";

/**
 * Syndicate's signTypedData request and signature reads (its OpenAPI: type_wallet:SignTypedDataRequest,
 * SignatureResponse, Signature, MessageSignature). The shapes are checked here; what the typed
 * data means (types that exist, values that fit them) by @relay/chain's checkTypedData, whose
 * errors name the field as well.
 */

const typedField = z.strictObject({
  name: z.string({ error: "a field's name must be a string" }),
  type: z.string({ error: "a field's type must be a string" }),
});

export const eip712Domain = z
  .record(z.string(), z.unknown(), { error: "domain must be an object" })
  .meta({
    description: "The EIP-712 domain: any of name, version, chainId, verifyingContract, salt (at least one)",
    example: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  });

export const eip712Types = z
  .record(z.string(), z.array(typedField, { error: "each entry of types must be an array of {name, type}" }), { error: "types must be an object" })
  .meta({
    description: "Struct types by name, each an array of {name, type}; EIP712Domain may be included (it must then list the domain's fields in EIP-712's order)",
  });

export const signTypedDataRequest = z
  .strictObject({
    signerAddress: evmAddress("signerAddress"),
    domain: eip712Domain,
    types: eip712Types,
    primaryType: z.string({ error: "primaryType must be a string naming one of types" }).min(1, "primaryType must name one of types"),
    message: z.record(z.string(), z.unknown(), { error: "message must be an object (a value of primaryType)" }),
    signatureId: omittable(uuid("signatureId must be a UUID")).meta({
      description: "Your id for this request, unique within the project; generated when null or omitted. Reusing it with the same request returns the stored signature; with another, 400.",
    }),
  })
  .meta({ id: "SignTypedDataRequest" });

export const signTypedDataResponse = z
  .object({
    message: z.record(z.string(), z.unknown()).meta({ description: "The message that was signed, as sent" }),
    signature: z.string().meta({ description: "65-byte r‖s‖v as 0x-hex, v = 27 or 28; ethers.verifyTypedData(domain, types, message, signature) returns the signer" }),
    signerAddress: z.string(),
    signatureId: z.uuid(),
  })
  .meta({ id: "SignTypedDataResponse" });

/** One typed-data signature (Syndicate's Signature). */
export const typedSignature = z
  .object({
    signatureId: z.uuid(),
    projectId: z.uuid(),
    walletAddress: z.string(),
    domain: eip712Domain,
    types: eip712Types,
    primaryType: z.string(),
    message: z.record(z.string(), z.unknown()),
    signature: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "TypedDataSignature" });

/** One personal signature (Syndicate's MessageSignature). */
export const messageSignature = z
  .object({
    signatureId: z.uuid(),
    projectId: z.uuid(),
    walletAddress: z.string(),
    chainId: z.number().int().meta({ description: "Always 0: a personal signature is not made on any chain (Syndicate's wallets are per chain, ours are not)" }),
    message: z.string(),
    signature: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "MessageSignature" });

export const MAX_SIGNATURES_PAGE = 100;

/** Paging of the signature lists, as Syndicate's other lists page: `page` from 0, `limit` up to 100 (default 20). */
export const signaturePageQuery = z.object({
  page: z.coerce.number({ error: "page must be a whole number from 0" }).int("page must be a whole number from 0").min(0, "page must be a whole number from 0").default(0),
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_SIGNATURES_PAGE}` })
    .int(`limit must be a whole number from 1 to ${MAX_SIGNATURES_PAGE}`)
    .min(1, `limit must be a whole number from 1 to ${MAX_SIGNATURES_PAGE}`)
    .max(MAX_SIGNATURES_PAGE, `limit must be a whole number from 1 to ${MAX_SIGNATURES_PAGE}`)
    .default(20),
});

export type SignTypedDataRequest = z.output<typeof signTypedDataRequest>;
export type SignTypedDataResponse = z.output<typeof signTypedDataResponse>;
