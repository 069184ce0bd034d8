import { typedDataText, type SignatureWithSigner } from "@relay/db";
import type { TypedData } from "@relay/chain";
import type { z } from "zod";
import type { messageSignature, typedSignature } from "./signing.schema";

/** A SIGNED typed-data record as Syndicate's Signature: the typed data as it was sent, from its stored JSON text. */
export function typedSignatureOf(record: SignatureWithSigner): z.output<typeof typedSignature> {
  const data = JSON.parse(typedDataText(record.message)) as TypedData;
  return {
    signatureId: record.id,
    projectId: record.projectId,
    walletAddress: record.signerAddress,
    domain: data.domain,
    types: data.types,
    primaryType: data.primaryType,
    message: data.message,
    signature: record.signature ?? "",
    createdAt: record.createdAt.toISOString(),
  };
}

/** A SIGNED personal record as Syndicate's MessageSignature; `chainId` 0: it was signed on no chain. */
export function messageSignatureOf(record: SignatureWithSigner, message: string): z.output<typeof messageSignature> {
  return {
    signatureId: record.id,
    projectId: record.projectId,
    walletAddress: record.signerAddress,
    chainId: 0,
    message,
    signature: record.signature ?? "",
    createdAt: record.createdAt.toISOString(),
  };
}
