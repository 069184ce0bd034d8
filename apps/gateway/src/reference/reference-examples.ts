import { z } from "zod";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-address of 40 hex digits");

/**
 * The records the reference's examples name. They differ per install (the quick start makes them
 * through the API and writes them to REFERENCE_EXAMPLES_FILE); without them, the built-in values
 * below, which name nothing that exists.
 */
export const referenceExamplesSchema = z.strictObject({
  projectId: z.uuid(),
  chainId: z.number().int().positive(),
  /** The wallet that signs and sends the examples. */
  walletAddress: address,
  /** A wallet the toggle and retire examples use up (wallets are named by address in the API). */
  spareWalletAddress: address,
  /** The demo contract (Recorder) the sendTransaction and call examples call. */
  contractAddress: address,
  /** A CONFIRMED transaction: reads, attempts, receipt; the speedUp example (409 there). */
  confirmedTransactionId: z.uuid(),
  /** A PENDING transaction the cancel example cancels. */
  cancellableTransactionId: z.uuid(),
  personalSignatureId: z.uuid(),
  typedDataSignatureId: z.uuid(),
  /** A registration the rotateSecret example rotates. */
  rotateEventCallbackId: z.uuid(),
  /** A registration the delete example deletes. */
  deleteEventCallbackId: z.uuid(),
});

export type ReferenceExamples = z.infer<typeof referenceExamplesSchema>;

/** Values used when no file names this install's records (anvil's first account and first deployment). */
export const DEFAULT_REFERENCE_EXAMPLES: ReferenceExamples = Object.freeze({
  projectId: "6f1d2c3b-4a59-4e68-8f7a-0b1c2d3e4f50",
  chainId: 31337,
  walletAddress: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  spareWalletAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  confirmedTransactionId: "3c0b7e0a-1d2e-4f3a-9b4c-5d6e7f809102",
  cancellableTransactionId: "8a9b0c1d-2e3f-4a5b-8c6d-7e8f90a1b2c3",
  personalSignatureId: "1e2d3c4b-5a69-4788-97a6-b5c4d3e2f101",
  typedDataSignatureId: "2f3e4d5c-6b7a-4899-a8b7-c6d5e4f3a212",
  rotateEventCallbackId: "4a5b6c7d-8e9f-40a1-b2c3-d4e5f6a7b8c9",
  deleteEventCallbackId: "5b6c7d8e-9fa0-41b2-83d4-e5f6a7b8c9d0",
});

/** Ids no install has: the 404 examples ask for them, the 403 examples name another project. */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000404";
export const OTHER_PROJECT_ID = "00000000-0000-4000-8000-000000000403";
export const UNKNOWN_WALLET = "0x000000000000000000000000000000000000dEaD";
/** The example webhook receiver (examples/webhook-receiver) on this machine. */
export const EXAMPLE_CALLBACK_URL = "http://127.0.0.1:4000/webhooks";
