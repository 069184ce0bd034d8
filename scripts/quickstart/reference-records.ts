import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { RelayClient, RelayError, type EventCallbackListItem } from "@relay/client";
// Type only: the gateway validates the file it reads with the schema beside this type.
import type { ReferenceExamples } from "../../apps/gateway/src/reference/reference-examples";
import type { DemoContract } from "./demo-contract";

/** The example webhook receiver's address (examples/webhook-receiver); WalletBalanceLow only, so nothing is sent unless a balance is low. */
const CALLBACK = { callbackURL: "http://127.0.0.1:4000/webhooks", eventType: "WalletBalanceLow" as const };

export interface ReferenceRecordsDeps {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  chainId: number;
  walletAddress: string;
  contract: DemoContract;
  /** Where the records are written (the gateway's REFERENCE_EXAMPLES_FILE) and read back on the next start. */
  file: string;
}

/**
 * Makes, through the API, the records the reference's examples name, and writes them to `file`.
 * What an example leaves usable is reused on the next start (the confirmed call, the signatures,
 * the registration to rotate); what it uses up is made again (the cancellable call once cancelled,
 * the spare wallet once retired, the registration to delete once deleted), so the records made
 * at each start stay few.
 */
export async function makeReferenceRecords(deps: ReferenceRecordsDeps): Promise<ReferenceExamples> {
  const client = new RelayClient({ baseUrl: deps.baseUrl, apiKey: deps.apiKey, projectId: deps.projectId });
  const known = previous(deps.file, deps.projectId);
  const still = async <T>(id: string | undefined, read: (id: string) => Promise<T>, usable: (record: T) => boolean): Promise<string | undefined> => {
    if (!id) return undefined;
    const record = await read(id).catch(() => undefined);
    return record !== undefined && usable(record) ? id : undefined;
  };
  // From the demo wallet: a wallet made by the create example has no funds to send with.
  const call = { chainId: deps.chainId, contractAddress: deps.contract.address, fromAddress: deps.walletAddress, ...deps.contract.exampleCall(deps.walletAddress) };

  const confirmed = async (): Promise<string> =>
    (await still(known?.confirmedTransactionId, (id) => client.getTransaction(id), (tx) => tx.status === "CONFIRMED")) ??
    (await (async () => {
      const { transactionId } = await client.sendTransaction(call);
      const tx = await client.waitForTransaction(transactionId, { intervalMs: 200, timeoutMs: 60_000 });
      if (tx.status !== "CONFIRMED") throw new Error(`the reference's example transaction ${transactionId} ended ${tx.status}, not CONFIRMED`);
      return transactionId;
    })());
  // Priced under any fee the chain asks: it waits PENDING, unsigned and without a nonce, for the cancel example.
  const cancellable = async (): Promise<string> =>
    (await still(known?.cancellableTransactionId, (id) => client.getTransaction(id), (tx) => tx.status === "PENDING")) ??
    (await client.sendTransaction({ ...call, maxFeePerGas: "1" })).transactionId;
  // Chosen once, so that a try again after a timeout is recognised as the same request.
  const ids = { personal: randomUUID(), typed: randomUUID() };
  const personal = async (): Promise<string> =>
    (await still(known?.personalSignatureId, (id) => client.getPersonalSignature(id), () => true)) ??
    (await patiently(() => client.personalSign({ signerAddress: deps.walletAddress, message: "hello", signatureId: ids.personal }))).signatureId;
  const typed = async (): Promise<string> =>
    (await still(known?.typedDataSignatureId, (id) => client.getTypedDataSignature(id), () => true)) ??
    (await patiently(() => client.signTypedData({ ...typedData(deps), signatureId: ids.typed }))).signatureId;

  // Independent of each other: made at once, so the start is ready sooner.
  const [confirmedTransactionId, cancellableTransactionId, personalSignatureId, typedDataSignatureId, callbacks, spareWalletAddress] = await Promise.all([
    confirmed(),
    cancellable(),
    personal(),
    typed(),
    eventCallbacks(client, known),
    // A creation that timed out may finish later: the next try lists the wallets again first.
    patiently(() => spareWallet(client, deps, known?.spareWalletAddress)),
  ]);

  const examples: ReferenceExamples = {
    projectId: deps.projectId,
    chainId: deps.chainId,
    walletAddress: deps.walletAddress,
    spareWalletAddress,
    contractAddress: deps.contract.address,
    confirmedTransactionId,
    cancellableTransactionId,
    personalSignatureId,
    typedDataSignatureId,
    ...callbacks,
  };
  writeFileSync(`${deps.file}.tmp`, `${JSON.stringify(examples, null, 2)}\n`);
  renameSync(`${deps.file}.tmp`, deps.file); // the gateway never reads half a file
  return examples;
}

/** A registration to rotate and one to delete, for WalletBalanceLow at the example receiver. */
async function eventCallbacks(client: RelayClient, known: ReferenceExamples | undefined): Promise<Pick<ReferenceExamples, "rotateEventCallbackId" | "deleteEventCallbackId">> {
  const callbacks = await client.listEventCallbacks();
  const active = (id: string | undefined): id is string => callbacks.some((c) => c.id === id && c.disabledReason === null);
  const rotateEventCallbackId = active(known?.rotateEventCallbackId) ? known.rotateEventCallbackId : (await client.createEventCallback(CALLBACK)).id;
  const deleteEventCallbackId = active(known?.deleteEventCallbackId) ? known.deleteEventCallbackId : (await client.createEventCallback(CALLBACK)).id;
  // Those the register example made on earlier runs: removed, or they would pile up to the project's limit.
  const leftOver = (c: EventCallbackListItem) => c.disabledReason === null && c.callbackURL === CALLBACK.callbackURL && c.eventType === CALLBACK.eventType;
  for (const c of callbacks.filter(leftOver)) if (c.id !== rotateEventCallbackId && c.id !== deleteEventCallbackId) await client.deleteEventCallback(c.id);
  return { rotateEventCallbackId, deleteEventCallbackId };
}

/**
 * A wallet for the toggle and retire examples, left inactive: the toggle example activates it,
 * and meanwhile it is chosen for no send (it holds no funds).
 */
async function spareWallet(client: RelayClient, deps: ReferenceRecordsDeps, known: string | undefined): Promise<string> {
  const wallets = await client.listWallets();
  const usable = wallets.filter((w) => w.retiredAt === null && w.walletAddress.toLowerCase() !== deps.walletAddress.toLowerCase());
  // Any unretired wallet but the demo's will do (one the create example made, say): no new wallet at each start.
  let spare = usable.find((w) => w.walletAddress === known) ?? usable.find((w) => !w.isActive) ?? usable[0];
  if (!spare) {
    const { walletAddress } = await client.createWallet({ chainId: deps.chainId });
    spare = { walletAddress, isActive: true } as (typeof wallets)[number];
  }
  if (spare.isActive) await client.toggleWalletIsActive(spare.walletAddress);
  return spare.walletAddress;
}

/**
 * `work`, tried again after a 500 or 503 (up to four times, 2 s apart): the signing worker just
 * started may not answer within SIGN_TIMEOUT_MS on a busy machine. Only for work that is safe to
 * repeat (a signature under the same signatureId; the spare wallet, looked for again first).
 */
async function patiently<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (attempt >= 4 || !(e instanceof RelayError) || (e.status !== 500 && e.status !== 503)) throw e;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

function typedData(deps: ReferenceRecordsDeps) {
  return {
    signerAddress: deps.walletAddress,
    domain: { name: "Relay demo", version: "1", chainId: deps.chainId, verifyingContract: deps.contract.address },
    types: { Order: [{ name: "id", type: "uint256" }, { name: "owner", type: "address" }] },
    primaryType: "Order",
    message: { id: "1", owner: deps.walletAddress },
  };
}

function previous(file: string, projectId: string): ReferenceExamples | undefined {
  try {
    const parsed = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as ReferenceExamples) : undefined;
    return parsed?.projectId === projectId ? parsed : undefined;
  } catch {
    return undefined;
  }
}
