/** Personal signatures (EIP-191) and typed-data signatures (EIP-712), and their reads. */

export interface PersonalSignRequest {
  signerAddress: string;
  message: string;
  /** Your id (a UUID); the client generates one when omitted, so a retry returns the stored signature. */
  signatureId?: string | null;
}

export interface PersonalSignResponse {
  message: string;
  signature: string;
  signerAddress: string;
  signatureId: string;
}

export interface SignatureRecord {
  signatureId: string;
  projectId: string;
  signerAddress: string;
  message: string;
  status: "PENDING" | "SIGNED";
  signature: string | null;
  createdAt: string;
  signedAt: string | null;
}

export interface TypedDataField {
  name: string;
  type: string;
}

export interface SignTypedDataRequest {
  signerAddress: string;
  domain: Record<string, unknown>;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
  /** Your id (a UUID); the client generates one when omitted, so a retry returns the stored signature. */
  signatureId?: string | null;
}

export interface SignTypedDataResponse {
  message: Record<string, unknown>;
  signature: string;
  signerAddress: string;
  signatureId: string;
}

export interface TypedDataSignature {
  signatureId: string;
  projectId: string;
  walletAddress: string;
  domain: Record<string, unknown>;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
  signature: string;
  createdAt: string;
}

export interface MessageSignature {
  signatureId: string;
  projectId: string;
  walletAddress: string;
  chainId: number;
  message: string;
  signature: string;
  createdAt: string;
}
