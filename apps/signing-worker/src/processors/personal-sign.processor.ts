import { AppError, isAppError, toError, type Logger } from "@relay/core";
import type { TypedData } from "@relay/chain";
import { kindOf, messageDigest, sameContent, typedDataText, type SignatureContent, type SignatureKey, type SignatureKind, type SignatureRepository, type SigningInput } from "@relay/db";
import type { Signer } from "@relay/custody";
import type { JobPayload, Processor } from "@relay/queue";

export interface PersonalSignDeps {
  signatures: Pick<SignatureRepository, "findForSigning" | "markSigned" | "findById" | "findProjectIds">;
  signer: Pick<Signer, "signMessage" | "signTypedData">;
}

/**
 * What became of one request: signed; gone (the gateway gave it up, nothing to sign); or failed
 * for good (a fault no retry can heal, e.g. the wallet's key no longer exists). A signature comes
 * with what it signs (the wallet and the message's SHA-256): the id may hold another request's
 * content by the time the worker reads it (signature-content.ts), and the gateway answers only
 * with a signature of its own request's content.
 */
export type PersonalSignResult =
  // kind: TYPED_DATA for typed data (absent for a personal message, as workers before typed data answer).
  | { outcome: "signed"; signature: string; walletId: string; messageSha256: string; kind?: "TYPED_DATA" }
  | { outcome: "gone" }
  | { outcome: "failed"; reason: string };

/** A v3 batch job's answer: each request's result, in the order of the job's `signatures`. */
export interface PersonalSignBatchResult {
  v: 3;
  results: PersonalSignResult[];
}

/** A v2 batch job's answer (gateways of an earlier version): each request's result by its signatureId. */
export interface LegacyBatchResult {
  v: 2;
  results: Record<string, PersonalSignResult>;
}

/**
 * Signs one stored personal_sign request. The record, not the job, is the truth: a record that
 * is gone was given up by the gateway (time-out) and is not signed; a record already signed
 * returns its signature, so a retried or duplicated job is harmless.
 */
async function signOne(deps: PersonalSignDeps, key: Signable, logger: Logger): Promise<PersonalSignResult> {
  const record = await deps.signatures.findForSigning(key);
  if (!record) {
    logger.info({ projectId: key.projectId, signatureId: key.id }, "signature request no longer exists; skipped");
    return { outcome: "gone" };
  }
  if (kindOf(record.message) !== (key.kind ?? "PERSONAL")) {
    logger.info({ projectId: key.projectId, signatureId: key.id }, "signature request under this id is of another kind; skipped");
    return { outcome: "gone" };
  }
  if (record.status === "SIGNED" && record.signature) return signed(record.signature, record);

  const signature = await signRecord(deps, record);
  // Only onto the record that was read: one stored under the same key since (the gateway gave
  // the first up meanwhile) keeps waiting for its own signature. Not after its gateway answered.
  if (await deps.signatures.markSigned(key, signature, record, key.signWithinMs)) return signed(signature, record);

  // Lost a race: another replica signed it (same deterministic signature), or the gateway gave up.
  const now = await deps.signatures.findById(key.projectId, key.id);
  return now?.status === "SIGNED" && now.signature && sameContent(now, record) ? signed(now.signature, now) : { outcome: "gone" };
}

/** EIP-191 over a personal message's bytes, or EIP-712 over typed data stored as its JSON text. */
async function signRecord(deps: PersonalSignDeps, record: SigningInput): Promise<string> {
  if (kindOf(record.message) === "PERSONAL") return deps.signer.signMessage(record.walletId, record.message);
  let data: TypedData;
  try {
    data = JSON.parse(typedDataText(record.message)) as TypedData;
  } catch (e) {
    throw new AppError("INTERNAL", "the stored typed data is not JSON", { cause: e });
  }
  return deps.signer.signTypedData(record.walletId, data);
}

const signed = (signature: string, content: SignatureContent): PersonalSignResult => ({
  outcome: "signed",
  signature,
  walletId: content.walletId,
  messageSha256: messageDigest(content.message),
  ...(kindOf(content.message) === "TYPED_DATA" ? { kind: "TYPED_DATA" as const } : {}),
});

/** A record a job names, its kind, and how long after its insert it may be signed (no limit: jobs of earlier gateways). */
type Signable = SignatureKey & { signWithinMs?: number | undefined; kind?: SignatureKind | undefined };

/** What a request of a job names: a record to sign, or an outcome known without one. */
type Target = Signable | PersonalSignResult;
const isKey = (t: Target): t is Signable => !("outcome" in t);

/** The longer of two requests' windows for one record (a client's retry waits longer than its first try). */
const longer = (a: Signable, b: Signable): Signable =>
  a.signWithinMs === undefined || b.signWithinMs === undefined ? { ...a, signWithinMs: undefined } : a.signWithinMs >= b.signWithinMs ? a : b;
const keyText = (key: SignatureKey) => `${key.projectId}/${key.id}`;

/**
 * The records a job's requests name, in its order. v1 and v2 jobs (gateways before signatureIds
 * were per project) name no project: the record is the one under the id, as ids were unique when
 * those gateways stored them. An id that another project has used since does not say which record
 * was meant, and that request fails.
 */
async function targetsOf(deps: PersonalSignDeps, payload: JobPayload<"personalSign">, logger: Logger): Promise<Target[]> {
  if (payload.v === 3) return payload.signatures.map(({ projectId, signatureId, signWithinMs, kind }) => ({ projectId, id: signatureId, signWithinMs, kind }));
  const ids = payload.v === 1 ? [payload.signatureId] : payload.signatures.map((s) => s.signatureId);
  const projects = await deps.signatures.findProjectIds(ids);
  return ids.map((id): Target => {
    const [projectId, ...others] = projects.get(id) ?? [];
    if (projectId === undefined) {
      logger.info({ signatureId: id }, "signature request no longer exists; skipped");
      return { outcome: "gone" };
    }
    if (others.length > 0) return { outcome: "failed", reason: `signatureId ${id} is used by more than one project, and the job names none` };
    return { projectId, id };
  });
}

/**
 * Signs the requests of a job. The requests of a batch run side by side, so the repository
 * coalesces their reads and updates into one statement each. A fault a retry can heal (Postgres
 * unreachable) fails the whole job, and BullMQ runs it again: requests already signed are then
 * answered from their records. A fault that cannot heal fails only its own request.
 *
 * v1 and v2 jobs (gateways of earlier versions) are answered in the shape their gateway waits for.
 */
export function createPersonalSignProcessor(deps: PersonalSignDeps): Processor<"personalSign"> {
  return async (payload, { logger }): Promise<PersonalSignResult | LegacyBatchResult | PersonalSignBatchResult> => {
    const targets = await targetsOf(deps, payload, logger);
    // A batch may name one record twice (a client's retry while the first try waits): signed once,
    // within the longer of their windows.
    const byText = new Map<string, Signable>();
    for (const k of targets.filter(isKey)) {
      const seen = byText.get(keyText(k));
      byText.set(keyText(k), seen ? longer(seen, k) : k);
    }
    const keys = [...byText.values()];
    const settled = await Promise.allSettled(keys.map((key) => signOne(deps, key, logger)));
    const transient = settled.find((s) => s.status === "rejected" && !(isAppError(s.reason) && !s.reason.retryable));
    if (transient?.status === "rejected") throw toError(transient.reason);

    const byKey = new Map<string, PersonalSignResult>();
    settled.forEach((s, i) => {
      const key = keys[i]!;
      if (s.status === "fulfilled") byKey.set(keyText(key), s.value);
      else {
        logger.error({ err: toError(s.reason), projectId: key.projectId, signatureId: key.id }, "signature request cannot be signed");
        byKey.set(keyText(key), { outcome: "failed", reason: toError(s.reason).message });
      }
    });
    const results = targets.map((t) => (isKey(t) ? byKey.get(keyText(t))! : t));
    if (payload.v === 1) return results[0]!;
    if (payload.v === 2) return { v: 2, results: Object.fromEntries(payload.signatures.map((s, i) => [s.signatureId, results[i]!])) };
    return { v: 3, results };
  };
}
