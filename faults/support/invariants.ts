import { JsonRpcProvider, verifyMessage } from "ethers";
import { callKey, countByCall, minedTransactions } from "@relay/testing";
import type { Outcome } from "./load";
import type { Stack } from "./stack";

const FINAL = new Set(["CONFIRMED", "REVERTED", "INVALID", "FAILED", "CANCELLED", "EXPIRED"]);
const MINED = new Set(["CONFIRMED", "REVERTED"]);

export interface ScenarioReport {
  scenario: string;
  transactions: { sent: number; accepted: number; refused: number; hung: number; stored: number; final: number; byStatus: Record<string, number> };
  signs: { sent: number; signed: number; failedCleanly: number; hung: number };
  registrations: { sent: number; accepted: number };
  events: { total: number; deliveries: number; delivered: number; receiverAttempts: number };
  duplicatesOnChain: number;
  nonceReuse: number;
  /** From the end of the fault to every accepted request final and every event delivered. */
  recoveryMs: number | null;
  /** The slowest answer the gateway gave during the scenario. */
  slowestAnswerMs: number;
  /** Requests sent again after no answer (LoadPlan.retryUnansweredMs), and how many of those were transactions answered 409 with their own id. */
  resent: { requests: number; conflicts: number };
  violations: string[];
}

interface TxRow {
  id: string;
  status: string;
  from: string | null;
  nonce: string | null;
  hash: string | null;
  calldata: string;
  history: number;
  lastHistory: string | null;
  attempts: number;
  cancelRequested: boolean;
}

/**
 * Polls until nothing of the project is in flight, or `timeoutMs` passes; returns whether it
 * settled. A PENDING signature counts as in flight: the gateway removes the record of a sign that
 * failed while Postgres was away in the background, a little after Postgres is back.
 */
export async function waitUntilSettled(stack: Stack, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await stack.pool
      .query<{ open: number }>(
        `SELECT (SELECT count(*) FROM transaction WHERE project_id = $1 AND status NOT IN ('CONFIRMED','REVERTED','INVALID','FAILED','CANCELLED'))
              + (SELECT count(*) FROM event WHERE project_id = $1 AND dispatched_at IS NULL)
              + (SELECT count(*) FROM webhook_delivery d JOIN event_callback c ON c.id = d.event_callback_id
                  WHERE c.project_id = $1 AND d.status = 'PENDING')
              + (SELECT count(*) FROM signature WHERE project_id = $1 AND status = 'PENDING') AS open`,
        [stack.project.projectId],
      )
      .catch(() => ({ rows: [{ open: -1 }] }));
    if (Number(rows[0]?.open) === 0) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** Whether a transaction of the same wallet at a lower nonce ended CANCELLED: its call never ran. */
function behindACancel(r: TxRow, all: TxRow[]): boolean {
  if (r.from === null || r.nonce === null) return false;
  return all.some((t) => t.status === "CANCELLED" && t.from === r.from && t.nonce !== null && BigInt(t.nonce) < BigInt(r.nonce!));
}

/**
 * The invariants of docs/reliability.md, checked against Postgres, the chain and the receiver:
 * every accepted request final; nothing on chain twice; no nonce used twice; every event
 * delivered at least once; nothing half-written. Returns the numbers and every violation found.
 */
export async function checkInvariants(
  stack: Stack,
  outcomes: Outcome[],
  timing: { faultEndedAt: number; settleTimeoutMs: number },
): Promise<ScenarioReport> {
  const settled = await waitUntilSettled(stack, timing.settleTimeoutMs);
  const recoveryMs = settled ? Date.now() - timing.faultEndedAt : null;
  const violations: string[] = [];
  const projectId = stack.project.projectId;
  const { pool } = stack;
  if (!settled) violations.push(`not settled within ${timing.settleTimeoutMs} ms`);

  // Transactions.
  const txRows = (
    await pool.query<TxRow>(
      `SELECT t.id, t.status, t.from_address AS "from", t.nonce::text AS nonce, t.hash, '0x' || encode(t.calldata, 'hex') AS calldata,
              (SELECT count(*)::int FROM transaction_status_change h WHERE h.project_id = t.project_id AND h.transaction_id = t.id) AS history,
              (SELECT h.status::text FROM transaction_status_change h WHERE h.project_id = t.project_id AND h.transaction_id = t.id ORDER BY h.id DESC LIMIT 1) AS "lastHistory",
              (SELECT count(*)::int FROM transaction_attempt a WHERE a.project_id = t.project_id AND a.transaction_id = t.id) AS attempts,
              t.cancel_requested_at IS NOT NULL AS "cancelRequested"
         FROM transaction t WHERE t.project_id = $1`,
      [projectId],
    )
  ).rows;
  const txById = new Map(txRows.map((r) => [r.id, r]));
  const txOutcomes = outcomes.filter((o) => o.kind === "transaction");
  const byStatus: Record<string, number> = {};
  for (const r of txRows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  for (const o of txOutcomes) {
    if (o.status === 200 && !txById.has(o.id)) violations.push(`transaction ${o.id} answered 200 but is not stored`);
    // Only a resent request may meet its own requestId: the 409 must name the transaction its
    // unanswered first send stored.
    if (o.status === 409 && (o.tries < 2 || o.body.transactionId !== o.id || !txById.has(o.id))) {
      violations.push(`transaction ${o.id}: 409 ${JSON.stringify(o.body)} after ${o.tries} send(s)`);
    }
    if (o.status === 0) violations.push(`transaction ${o.id}: no answer (${String(o.body.error)})`);
    // The contract's sendTransaction 500 has no fields: JSON `{}` (other errors carry a message).
    if (o.status !== 200 && o.status !== 0 && (o.body.notJson !== undefined || (o.status !== 500 && typeof o.body.message !== "string"))) {
      violations.push(`transaction ${o.id}: ${o.status} without a JSON body`);
    }
  }
  for (const r of txRows) {
    if (!FINAL.has(r.status)) violations.push(`transaction ${r.id} is still ${r.status}`);
    if (r.history === 0 || r.lastHistory !== r.status) violations.push(`transaction ${r.id} is ${r.status} but its history ends with ${r.lastHistory}`);
    if (MINED.has(r.status) && (r.attempts === 0 || !r.hash)) violations.push(`transaction ${r.id} is ${r.status} without a signed attempt`);
    // The load's calls succeed in any order: one that reverted ran out of gas. The one exception
    // is docs/transactions.md's known limit of a cancel: a later call of the same wallet was sized
    // for the state the cancelled call would have left (Recorder.setOwnOrder's cost depends on
    // what the sender's previous call wrote), and the cancel took that call out of the order.
    if (r.status === "REVERTED" && !behindACancel(r, txRows)) violations.push(`transaction ${r.id} REVERTED, though its call succeeds in any order (out of gas?)`);
  }

  // The chain: each calldata at most once (exactly once if mined), and only our own sends.
  const mined = await minedTransactions(stack.anvil.rpcUrl);
  const counts = countByCall(mined);
  let duplicatesOnChain = 0;
  for (const r of txRows) {
    const n = counts.get(callKey(stack.recorder.address, r.calldata)) ?? 0;
    if (n > 1) {
      duplicatesOnChain += n - 1;
      violations.push(`transaction ${r.id} is on chain ${n} times`);
    }
    if (MINED.has(r.status) && n !== 1) violations.push(`transaction ${r.id} is ${r.status} but on chain ${n} times`);
    if ((r.status === "INVALID" || r.status === "FAILED") && n !== 0) violations.push(`transaction ${r.id} is ${r.status} but on chain`);
    // A cancelled transaction's call never ran.
    if (r.status === "CANCELLED" && n !== 0) violations.push(`transaction ${r.id} is CANCELLED but its call is on chain ${n} times`);
    if (r.status === "CANCELLED" && !r.cancelRequested) violations.push(`transaction ${r.id} is CANCELLED though no cancel was asked for`);
  }
  const wallets = new Set(stack.project.wallets.map((w) => w.address.toLowerCase()));
  const fillers = (await pool.query<{ hash: string | null }>(`SELECT hash FROM nonce_filler WHERE chain_id = $1`, [stack.anvil.chainId])).rows;
  const attemptHashes = (
    await pool.query<{ hash: string }>(`SELECT hash FROM transaction_attempt WHERE project_id = $1`, [projectId])
  ).rows;
  const ours = new Set([...attemptHashes.map((a) => a.hash.toLowerCase()), ...fillers.flatMap((f) => (f.hash ? [f.hash.toLowerCase()] : []))]);
  const fromWallets = mined.filter((tx) => wallets.has(tx.from));
  for (const tx of fromWallets) if (!ours.has(tx.hash.toLowerCase())) violations.push(`mined ${tx.hash} from ${tx.from} nonce ${tx.nonce} was never recorded`);
  const minedByHash = new Map(fromWallets.map((tx) => [tx.hash.toLowerCase(), tx]));
  for (const r of txRows.filter((t) => MINED.has(t.status))) {
    const tx = r.hash ? minedByHash.get(r.hash.toLowerCase()) : undefined;
    if (!tx || tx.from !== r.from?.toLowerCase() || String(tx.nonce) !== r.nonce) {
      violations.push(`transaction ${r.id}: recorded hash ${r.hash} (${r.from} nonce ${r.nonce}) is not what was mined`);
    }
  }
  // CANCELLED with a hash: its cancel was mined, a zero-data transfer of the wallet to itself at its nonce.
  for (const r of txRows.filter((t) => t.status === "CANCELLED" && t.hash)) {
    const tx = minedByHash.get(r.hash!.toLowerCase());
    if (!tx || tx.from !== r.from?.toLowerCase() || tx.to !== tx.from || tx.input !== "0x" || String(tx.nonce) !== r.nonce) {
      violations.push(`transaction ${r.id}: CANCELLED with ${r.hash}, which is not a mined self-transfer at its nonce`);
    }
  }

  // Cancels and speed-ups: answered with what the transaction then did.
  for (const o of outcomes.filter((x) => x.kind === "cancel" || x.kind === "speedUp")) {
    const r = txById.get(o.id);
    if (o.status === 0) violations.push(`${o.kind} of ${o.id}: no answer (${String(o.body.error)})`);
    else if (o.status !== 200 && typeof o.body.message !== "string") violations.push(`${o.kind} of ${o.id}: ${o.status} without a JSON message`);
    else if (o.kind === "cancel" && o.status === 200 && o.body.cancel === "done" && r?.status !== "CANCELLED") violations.push(`cancel of ${o.id} answered done, but it is ${r?.status}`);
    else if (o.kind === "cancel" && o.status === 200 && !r?.cancelRequested) violations.push(`cancel of ${o.id} answered 200, but none is recorded`);
    else if (o.status === 409 && !/is (PENDING|PAUSED|SUBMITTED|CONFIRMED|REVERTED|INVALID|FAILED|CANCELLED)/.test(String(o.body.message))) violations.push(`${o.kind} of ${o.id}: 409 ${String(o.body.message)}`);
    else if (![200, 409].includes(o.status) && o.status < 500) violations.push(`${o.kind} of ${o.id}: ${o.status} ${String(o.body.message)}`);
  }

  // Nonces: none bound to two transactions, and every handed-out nonce used on chain (no gap).
  const nonceReuse = (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT chain_id, from_address, nonce FROM transaction_attempt WHERE project_id = $1
          GROUP BY chain_id, from_address, nonce HAVING count(DISTINCT transaction_id) > 1) x`,
      [projectId],
    )
  ).rows[0]!.n;
  if (nonceReuse > 0) violations.push(`${nonceReuse} nonces were signed for more than one transaction`);
  const provider = new JsonRpcProvider(stack.anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const next = (
      await pool.query<{ address: string; next: string }>(`SELECT address, next::text AS next FROM wallet_nonce WHERE chain_id = $1`, [stack.anvil.chainId])
    ).rows;
    for (const w of next.filter((n) => wallets.has(n.address.toLowerCase()))) {
      const onChain = await provider.getTransactionCount(w.address, "latest");
      if (String(onChain) !== w.next) violations.push(`wallet ${w.address}: relay's next nonce ${w.next}, chain's ${onChain}`);
    }
  } finally {
    provider.destroy();
  }

  // Signatures: a 200 is stored and verifies; a 500 left nothing; nothing PENDING remains.
  const signOutcomes = outcomes.filter((o) => o.kind === "sign");
  const sigRows = new Map(
    (
      await pool.query<{ id: string; status: string; signature: string | null }>(`SELECT id, status, signature FROM signature WHERE project_id = $1`, [projectId])
    ).rows.map((r) => [r.id, r]),
  );
  for (const o of signOutcomes) {
    const row = sigRows.get(o.id);
    if (o.status === 200) {
      if (row?.status !== "SIGNED" || row.signature !== o.body.signature) violations.push(`signature ${o.id} answered 200 but is stored as ${row?.status}`);
      else if (verifyMessage(o.message!, row.signature!).toLowerCase() !== o.signer!.toLowerCase()) violations.push(`signature ${o.id} does not verify`);
    } else if (o.status === 0) {
      violations.push(`signature ${o.id}: no answer (${String(o.body.error)})`);
    } else {
      if (typeof o.body.message !== "string") violations.push(`signature ${o.id}: ${o.status} without a JSON message`);
      if (row) violations.push(`signature ${o.id} answered ${o.status} but a ${row.status} record remains`);
    }
  }
  for (const row of sigRows.values()) if (row.status === "PENDING") violations.push(`signature ${row.id} left PENDING`);

  // Registrations and events: every event of the project reaches every registration made before
  // the load, and the receiver accepted each delivery at least once.
  const regOutcomes = outcomes.filter((o) => o.kind === "registration");
  const callbacks = (
    await pool.query<{ id: string; url: string }>(`SELECT id, callback_url AS url FROM event_callback WHERE project_id = $1`, [projectId])
  ).rows;
  const labelOf = new Map(callbacks.map((c) => [c.id, c.url.replace(/^.*\/hook\//, "")]));
  for (const o of regOutcomes) {
    if (o.status === 200 && !callbacks.some((c) => c.id === o.body.id)) violations.push(`registration ${o.id} answered 200 but is not stored`);
    if (o.status === 0) violations.push(`registration ${o.id}: no answer`);
  }
  const events = (
    await pool.query<{ id: string; dispatched: boolean }>(
      `SELECT id, dispatched_at IS NOT NULL AS dispatched FROM event WHERE project_id = $1 AND event_type = 'TransactionStatusChange'`,
      [projectId],
    )
  ).rows;
  const deliveries = (
    await pool.query<{ eventId: string; callbackId: string; status: string }>(
      `SELECT d.event_id AS "eventId", d.event_callback_id AS "callbackId", d.status::text AS status
         FROM webhook_delivery d JOIN event e ON e.id = d.event_id WHERE e.project_id = $1`,
      [projectId],
    )
  ).rows;
  const accepted = stack.receiver.accepted();
  const delivered = deliveries.filter((d) => accepted.has(`${labelOf.get(d.callbackId)}|${d.eventId}`)).length;
  for (const d of deliveries) {
    if (d.status !== "DELIVERED") violations.push(`delivery of event ${d.eventId} to ${labelOf.get(d.callbackId)} is ${d.status}`);
    if (!accepted.has(`${labelOf.get(d.callbackId)}|${d.eventId}`)) violations.push(`event ${d.eventId} never accepted by ${labelOf.get(d.callbackId)}`);
  }
  const before = callbacks.filter((c) => labelOf.get(c.id)!.startsWith("before-"));
  const deliveryKeys = new Set(deliveries.map((d) => `${d.callbackId}|${d.eventId}`));
  for (const e of events) {
    if (!e.dispatched) violations.push(`event ${e.id} never dispatched`);
    for (const c of before) if (!deliveryKeys.has(`${c.id}|${e.id}`)) violations.push(`event ${e.id} has no delivery to ${labelOf.get(c.id)}`);
  }
  // Each status change of a transaction is one event: a missing one is a half-written change.
  const historyRows = txRows.reduce((sum, r) => sum + r.history, 0);
  if (events.length !== historyRows) violations.push(`${historyRows} status changes but ${events.length} events`);

  const answered = outcomes.filter((o) => o.status !== 0);
  return {
    scenario: stack.name,
    transactions: {
      sent: txOutcomes.length,
      // 200, or a resend's 409 naming its own id (the first send was stored; checked above).
      accepted: txOutcomes.filter((o) => o.status === 200 || (o.status === 409 && o.body.transactionId === o.id)).length,
      refused: txOutcomes.filter((o) => o.status >= 500).length,
      hung: txOutcomes.filter((o) => o.status === 0).length,
      stored: txRows.length,
      final: txRows.filter((r) => FINAL.has(r.status)).length,
      byStatus,
    },
    signs: {
      sent: signOutcomes.length,
      signed: signOutcomes.filter((o) => o.status === 200).length,
      failedCleanly: signOutcomes.filter((o) => o.status >= 500 && !sigRows.has(o.id)).length,
      hung: signOutcomes.filter((o) => o.status === 0).length,
    },
    registrations: { sent: regOutcomes.length, accepted: regOutcomes.filter((o) => o.status === 200).length },
    events: { total: events.length, deliveries: deliveries.length, delivered, receiverAttempts: stack.receiver.attempts.length },
    duplicatesOnChain,
    nonceReuse,
    recoveryMs,
    slowestAnswerMs: Math.max(0, ...answered.map((o) => o.ms)),
    resent: {
      requests: outcomes.filter((o) => o.tries > 1).length,
      conflicts: txOutcomes.filter((o) => o.tries > 1 && o.status === 409).length,
    },
    violations,
  };
}

/** The report as the fault suite prints it (docs/reliability.md quotes these lines). */
export function printReport(report: ScenarioReport, notes: Record<string, unknown> = {}): void {
  const t = report.transactions;
  const s = report.signs;
  const lines = [
    `== fault scenario: ${report.scenario}`,
    ...Object.entries(notes).map(([k, v]) => `   ${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`),
    `   transactions: sent ${t.sent}, accepted ${t.accepted}, refused 5xx ${t.refused}, hung ${t.hung}; stored ${t.stored}, final ${t.final} ${JSON.stringify(t.byStatus)}`,
    `   personal signs: sent ${s.sent}, signed ${s.signed}, failed cleanly ${s.failedCleanly}, hung ${s.hung}`,
    `   registrations: sent ${report.registrations.sent}, accepted ${report.registrations.accepted}`,
    `   events: ${report.events.total}, deliveries ${report.events.deliveries}, accepted by the receiver ${report.events.delivered} (${report.events.receiverAttempts} attempts)`,
    ...(report.resent.requests > 0
      ? [`   sent again after no answer: ${report.resent.requests} (transactions answered 409 with their own id: ${report.resent.conflicts})`]
      : []),
    `   on chain twice: ${report.duplicatesOnChain}; nonce used twice: ${report.nonceReuse}`,
    `   slowest answer: ${report.slowestAnswerMs} ms; recovered (all final, all delivered) ${report.recoveryMs === null ? "NOT" : `${(report.recoveryMs / 1000).toFixed(1)} s`} after the fault ended`,
    `   violations: ${report.violations.length === 0 ? "none" : `\n     - ${report.violations.slice(0, 30).join("\n     - ")}`}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
