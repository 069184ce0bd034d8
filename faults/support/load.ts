import { randomUUID } from "node:crypto";
import { Interface } from "ethers";
import type { Stack } from "./stack";

export const SET_OWN_ORDER = "function setOwnOrder((uint256 id, address owner, uint8[] flags) order)";
const recorderAbi = new Interface([SET_OWN_ORDER]);
const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** A request without an answer after this long counts as hung (status 0). */
const HANG_MS = 30_000;

export interface Outcome {
  /** cancel, speedUp: a request on the transaction `id` (POST …/cancel, …/speedUp). */
  kind: "transaction" | "sign" | "registration" | "cancel" | "speedUp";
  /** transactionId / signatureId / registration label. */
  id: string;
  status: number;
  body: Record<string, unknown>;
  ms: number;
  /** How many times the request was sent (more than once only with LoadPlan.retryUnansweredMs). */
  tries: number;
  /** transaction: lower-case calldata; sign: the message and signer. */
  calldata?: string;
  message?: string;
  signer?: string;
}

export interface LoadPlan {
  transactions: number;
  signs: number;
  /** Registrations made while the load runs (besides the ones made before it). */
  registrations: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Pause between starting two requests, so a fault lands in the middle of the load. */
  paceMs?: number;
  /**
   * A request that got no answer at all (connection refused or reset: the gateway died) is sent
   * again, unchanged (same requestId, signatureId, message), every 250 ms for up to this long, as
   * a client of the contract does. Registrations are never resent (the contract gives them no
   * idempotency key). Without it, no answer is the outcome.
   */
  retryUnansweredMs?: number;
  /**
   * Of the transactions, how many get a cancel and how many a speed-up asked for, 0–3 s after they
   * are accepted (so at any status: PENDING, SUBMITTED, mined, final). Both are idempotent, so a
   * request without an answer is sent again like the others.
   */
  cancels?: number;
  speedUps?: number;
}


type Answer = { status: number; body: Record<string, unknown>; ms: number; tries: number };

/** One request, and its resends while it gets no answer (see LoadPlan.retryUnansweredMs). */
async function call(stack: Stack, method: string, path: string, body: unknown, retryUnansweredMs = 0): Promise<Answer> {
  const giveUpAt = Date.now() + retryUnansweredMs;
  for (let tries = 1; ; tries++) {
    const answer = await callOnce(stack, method, path, body);
    if (answer.status !== 0 || Date.now() >= giveUpAt) return { ...answer, tries };
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function callOnce(stack: Stack, method: string, path: string, body: unknown): Promise<Omit<Answer, "tries">> {
  const started = Date.now();
  try {
    const res = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.project.apiKey}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { notJson: text.slice(0, 200) };
    }
    return { status: res.status, body: parsed, ms: Date.now() - started };
  } catch (e) {
    // No answer at all: refused (gateway down) or hung past HANG_MS.
    return { status: 0, body: { error: String(e) }, ms: Date.now() - started };
  }
}

let nextOrderId = 1;

/**
 * One sendTransaction of a fresh Recorder.setOwnOrder call (its calldata is unique to it). Every
 * other order has flags: one without empties the slots the wallet's order before it filled, so what
 * a call's storage writes cost (20,000 gas for a slot filled afresh, 2,900 for one changed) depends
 * on the wallet's call mined before it. The order is kept per sender, so another wallet's calls do
 * not change that cost (the relay sizes gas after a wallet's own transactions; the chain orders
 * different senders as it likes). Every call is valid in any order: none may revert.
 */
export async function sendTransaction(stack: Stack, retryUnansweredMs = 0): Promise<Outcome> {
  const n = nextOrderId++;
  const order = { id: String(n + stack.anvil.chainId * 1_000_000), owner: OWNER, flags: n % 2 === 0 ? [1, 2, 3] : ([] as number[]) };
  const requestId = randomUUID();
  const answer = await call(stack, "POST", "/transact/sendTransaction", {
    projectId: stack.project.projectId,
    chainId: stack.anvil.chainId,
    contractAddress: stack.recorder.address,
    requestId,
    functionSignature: SET_OWN_ORDER,
    args: { order },
  }, retryUnansweredMs);
  return { kind: "transaction", id: requestId, ...answer, calldata: recorderAbi.encodeFunctionData("setOwnOrder", [order]).toLowerCase() };
}

/** A transaction, then a cancel or a speed-up of it 0–3 s after it is accepted. */
export async function sendAndControl(stack: Stack, action: "cancel" | "speedUp", retryUnansweredMs = 0): Promise<Outcome[]> {
  const sent = await sendTransaction(stack, retryUnansweredMs);
  if (sent.status !== 200) return [sent];
  await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 3000)));
  const path = `/transact/project/${stack.project.projectId}/transactions/${sent.id}/${action}`;
  const answer = await call(stack, "POST", path, {}, retryUnansweredMs);
  return [sent, { kind: action, id: sent.id, ...answer }];
}

export async function personalSign(stack: Stack, i: number, retryUnansweredMs = 0): Promise<Outcome> {
  const signer = stack.project.wallets[i % stack.project.wallets.length]!.address;
  const signatureId = randomUUID();
  const message = `fault suite ${stack.name} #${i} ${randomUUID()}`;
  const answer = await call(stack, "POST", `/wallet/project/${stack.project.projectId}/personalSign`, { signerAddress: signer, message, signatureId }, retryUnansweredMs);
  return { kind: "sign", id: signatureId, ...answer, message, signer };
}

export async function registerCallback(stack: Stack, label: string): Promise<Outcome> {
  const answer = await call(stack, "POST", `/webhook/project/${stack.project.projectId}/eventCallback`, {
    callbackURL: stack.receiver.urlFor(label),
    eventType: "TransactionStatusChange",
  });
  return { kind: "registration", id: label, ...answer };
}

/**
 * Runs the plan's requests interleaved (transaction, sign, …), `concurrency` at a time, one new
 * request every `paceMs`. Resolves with every outcome once all have an answer (or count as hung).
 */
export async function runLoad(stack: Stack, plan: LoadPlan): Promise<Outcome[]> {
  const retryMs = plan.retryUnansweredMs ?? 0;
  const jobs: (() => Promise<Outcome | Outcome[]>)[] = [];
  const longest = Math.max(plan.transactions, plan.signs);
  const registrationEvery = plan.registrations > 0 ? Math.max(1, Math.floor(longest / plan.registrations)) : Infinity;
  let registrations = 0;
  let cancels = 0;
  let speedUps = 0;
  for (let i = 0; i < longest; i++) {
    // Cancels and speed-ups spread over the load: every 5th transaction (from the 2nd) and every 5th from the 4th.
    if (i < plan.transactions && i % 5 === 1 && cancels < (plan.cancels ?? 0)) {
      cancels++;
      jobs.push(() => sendAndControl(stack, "cancel", retryMs));
    } else if (i < plan.transactions && i % 5 === 3 && speedUps < (plan.speedUps ?? 0)) {
      speedUps++;
      jobs.push(() => sendAndControl(stack, "speedUp", retryMs));
    } else if (i < plan.transactions) jobs.push(() => sendTransaction(stack, retryMs));
    if (i < plan.signs) jobs.push(() => personalSign(stack, i, retryMs));
    if (i % registrationEvery === 0 && registrations < plan.registrations) {
      const label = `during-${registrations++}`;
      jobs.push(() => registerCallback(stack, label));
    }
  }
  const outcomes: Outcome[] = [];
  const concurrency = plan.concurrency ?? 6;
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      outcomes.push(...[await job()].flat());
      if (plan.paceMs) await new Promise((r) => setTimeout(r, plan.paceMs));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return outcomes;
}
