import { randomUUID } from "node:crypto";
import { recoverAddress } from "ethers";
import { AppError, isAppError, type Logger } from "@relay/core";
import { checkTypedData } from "@relay/chain";
import { isUsable, kindOf, messageDigest, sameContent, typedDataMessage, type SignatureContent, type SignatureKey, type SignatureRepository, type WalletRepository } from "@relay/db";
import type { PersonalSignRequest, PersonalSignResponse } from "../routes/personal-sign.schema";
import type { SignTypedDataRequest, SignTypedDataResponse } from "../syndicate/signing.schema";
import type { RequestContext } from "./request-context";
import { CLEANUP_DELAYS_MS, createBackgroundRetrier } from "./retry-in-background";
import type { SignBatches, SignOutcome } from "./sign-batches";
import { claimSignatureId, InsertUnanswered, type Claim } from "./claim-signature-id";

export interface PersonalSignDeps {
  wallets: Pick<WalletRepository, "findByAddress">;
  signatures: Pick<SignatureRepository, "insertPending" | "findById" | "deletePending">;
  /** Hands requests to the signing worker in batches and waits for each one's outcome. */
  batches: Pick<SignBatches, "sign">;
  /** The batches' time-out, named in the answer when it runs out. */
  timeoutMs: number;
  logger: Logger;
  /** Waits between tries of a clean-up that failed because Postgres was unreachable. */
  cleanupDelaysMs?: readonly number[];
}

interface WalletRef {
  id: string;
  projectId: string;
  /** Active and not retired, as read at `at`. */
  usable: boolean;
  at: number;
}

/** How long a wallet's state (active, retired) is reused: a deactivated wallet stops signing within this. */
const WALLET_STATE_TTL_MS = 5_000;

const MAX_CACHED_WALLETS = 50_000;
const encoder = new TextEncoder();
// A leading U+FEFF is part of the message that was signed: the default decoder drops it.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * personal_sign: store the request, hand its id to the signing worker, wait for the signature.
 * The gateway never sees a key. If the worker does not answer in time the request is removed
 * again, so a 500 leaves nothing behind; a client may retry with the same signatureId.
 */
export function createPersonalSignService(deps: PersonalSignDeps) {
  // Wallets never move between projects, so address → wallet is safe to remember; its state
  // (active, retired) is read again after WALLET_STATE_TTL_MS.
  const walletCache = new Map<string, WalletRef>();
  const cleanups = createBackgroundRetrier({ delaysMs: deps.cleanupDelaysMs ?? CLEANUP_DELAYS_MS, logger: deps.logger });

  const walletOf = async (projectId: string, address: string): Promise<WalletRef> => {
    let wallet = walletCache.get(address);
    if (!wallet || Date.now() - wallet.at >= WALLET_STATE_TTL_MS) {
      const row = await deps.wallets.findByAddress(address);
      wallet = undefined;
      if (row) {
        wallet = { id: row.id, projectId: row.projectId, usable: isUsable(row), at: Date.now() };
        if (walletCache.size >= MAX_CACHED_WALLETS) walletCache.clear();
        walletCache.set(address, wallet);
      }
    }
    if (!wallet || wallet.projectId !== projectId) {
      throw new AppError(
        "SIGNATURE_ERROR",
        `signerAddress ${address} is not a wallet of project ${projectId}; sign with one of its wallets (an operator adds them with \`npm run relay -- wallets create --project ${projectId}\` for a new key or \`npm run relay -- wallets import --project ${projectId}\` for an existing one)`,
      );
    }
    if (!wallet.usable) {
      // As Syndicate: a deactivated or retired wallet signs nothing new.
      throw new AppError(
        "SIGNATURE_ERROR",
        `signerAddress ${address} is a deactivated or retired wallet of project ${projectId}; sign with an active one (a deactivated wallet is activated again with POST /wallet/toggleIsActive)`,
      );
    }
    return wallet;
  };

  /**
   * Postgres did not answer while a request's record may exist (an insert whose answer was lost,
   * a clean-up that failed): the request fails, and the record, if any, is removed in the
   * background once Postgres answers again, so a 500 leaves nothing behind.
   */
  const removeLater = (key: SignatureKey, content: SignatureContent, cause: unknown): AppError => {
    void cleanups.retry(() => deps.signatures.deletePending(key, content), { projectId: key.projectId, signatureId: key.id, cleanup: "pending signature" });
    return new AppError("INTERNAL", "Signing could not be completed: the database is unavailable. Retry with the same signatureId later.", { cause });
  };


  /** The stored signature under `key` when it is of `content`; a record of another request that took the key since does not count. */
  const storedSignature = async (key: SignatureKey, content: SignatureContent): Promise<string | undefined> => {
    const record = await deps.signatures.findById(key.projectId, key.id);
    return record?.status === "SIGNED" && record.signature && sameContent(record, content) ? record.signature : undefined;
  };

  /**
   * The worker's signature when it signed this request's content. The id alone does not say so:
   * this request may be a retry waiting on a record that timed out and was removed, and the id
   * now holds another request's (signature-content.ts). A worker older than that answer's fields
   * is checked against the stored record instead.
   */
  const ownSignature = async (key: SignatureKey, content: SignatureContent, result: SignOutcome & { outcome: "signed" }): Promise<string | undefined> => {
    if (result.walletId === undefined || result.messageSha256 === undefined) return storedSignature(key, content);
    const same = result.walletId === content.walletId && (result.kind ?? "PERSONAL") === kindOf(content.message) && result.messageSha256 === messageDigest(content.message);
    return same ? result.signature : undefined;
  };

  const waitForSignature = async <R>(
    key: SignatureKey,
    content: SignatureContent,
    context: RequestContext,
    signWithinMs: number,
    respond: (signature: string) => R,
  ): Promise<R> => {
    const signatureId = key.id;
    let failure: unknown;
    try {
      const result = await deps.batches.sign(key.projectId, signatureId, context.reqId, signWithinMs, kindOf(content.message));
      if (result.outcome === "signed") {
        const signature = await ownSignature(key, content, result);
        if (signature) return respond(signature);
        failure = new AppError("INTERNAL", "signing worker signed another request stored under this signatureId since");
      } else {
        failure = new AppError("INTERNAL", result.outcome === "gone" ? "signing worker reported the request gone" : `signing failed: ${result.reason}`);
      }
    } catch (e) {
      failure = e;
    }
    // Give up cleanly (the batch's job is already removed unless a worker has it): remove the
    // request unless the worker signed it after all.
    let removed: boolean;
    try {
      removed = await deps.signatures.deletePending(key, content);
    } catch (e) {
      throw removeLater(key, content, e);
    }
    if (!removed) {
      const signature = await storedSignature(key, content);
      if (signature) return respond(signature);
    }
    deps.logger.warn({ err: failure, projectId: key.projectId, signatureId }, kindOf(content.message) === "PERSONAL" ? "personal sign not completed" : "typed-data sign not completed");
    const timedOut = isAppError(failure) && failure.code === "TIMEOUT";
    throw new AppError(
      "INTERNAL",
      timedOut
        ? `Signing did not complete within ${deps.timeoutMs} ms; nothing was stored. Retry with the same signatureId.`
        : "Signing could not be completed; nothing was stored. Retry with the same signatureId.",
      { cause: failure },
    );
  };

  /** Stores the request under its signatureId (or finds it stored), has the worker sign it, answers with `respond`. */
  const signStored = async <R>(key: SignatureKey, content: SignatureContent, context: RequestContext, respond: (signature: string) => R): Promise<R> => {
    let claim: Claim;
    try {
      claim = await claimSignatureId(deps.signatures, { ...key, ...content, apiKeyId: context.keyId ?? null });
    } catch (e) {
      throw e instanceof InsertUnanswered ? removeLater(key, content, e.reason) : e;
    }
    if (claim.kind === "signed") return respond(claim.signature);
    // Signable only while this request waits, counted from the record's insert (the wait starts
    // after it): a worker that gets to it after this gateway answered (a time-out, Postgres
    // frozen meanwhile so the record could not be removed) must not leave a signature behind a 500.
    const signWithinMs = deps.timeoutMs + (claim.kind === "pending" ? claim.waitedMs : 0);
    return waitForSignature(key, content, context, signWithinMs, respond);
  };

  return {
    /** `context.reqId`: the HTTP request's id, carried by the job for its log lines. */
    sign: async (projectId: string, request: PersonalSignRequest, context: RequestContext = {}): Promise<PersonalSignResponse> => {
      const wallet = await walletOf(projectId, request.signerAddress);
      const key = { projectId, id: request.signatureId ?? randomUUID() };
      const content = { walletId: wallet.id, message: encoder.encode(request.message) };
      return signStored(key, content, context, (signature) => ({
        message: request.message,
        signature,
        signerAddress: request.signerAddress,
        signatureId: key.id,
      }));
    },

    /**
     * EIP-712 (Syndicate's signTypedData): the typed data is checked (a 400 naming the field) and
     * stored as its JSON text, marked as typed data (signature-content.ts); the signing worker signs its digest. The
     * answer's signature is checked to recover to the signer before it is given: a signing worker
     * older than typed data would have signed the text as a personal message.
     */
    signTypedData: async (projectId: string, request: SignTypedDataRequest, context: RequestContext = {}): Promise<SignTypedDataResponse> => {
      const given = { domain: request.domain, types: request.types, primaryType: request.primaryType, message: request.message };
      const { digest } = checkTypedData(given);
      // Integers past 2^53 arrive as BigInts (middleware/exact-numbers.ts): stored, signed and
      // answered as decimal strings, which EIP-712 encodes the same.
      const typedData = JSON.parse(JSON.stringify(given, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))) as typeof given;
      const wallet = await walletOf(projectId, request.signerAddress);
      const key = { projectId, id: request.signatureId ?? randomUUID() };
      const content = { walletId: wallet.id, message: typedDataMessage(JSON.stringify(typedData)) };
      return signStored(key, content, context, (signature) => {
        if (!recoversTo(digest, signature, request.signerAddress)) {
          throw new AppError("INTERNAL", "the signing worker's signature does not recover to the signer; upgrade the signing workers before the gateways (docs/operations.md)");
        }
        return { message: typedData.message, signature, signerAddress: request.signerAddress, signatureId: key.id };
      });
    },
  };
}

export type PersonalSignService = ReturnType<typeof createPersonalSignService>;

function recoversTo(digest: string, signature: string, address: string): boolean {
  try {
    return recoverAddress(digest, signature) === address;
  } catch {
    return false;
  }
}

export const decodeMessage = (bytes: Uint8Array): string => decoder.decode(bytes);
