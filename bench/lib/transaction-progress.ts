import type { Sql } from "@relay/db";

export const FINAL_STATUSES = ["CONFIRMED", "REVERTED", "INVALID", "FAILED"] as const;

/** Transactions created since `since`, counted by status. */
export async function statusCounts(sql: Sql, since: Date): Promise<Record<string, number>> {
  const { rows } = await sql.query<{ status: string; n: string }>(`select status, count(*) as n from "transaction" where created_at >= $1 group by status`, [since]);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

export const finalCount = (statuses: Record<string, number>) => FINAL_STATUSES.reduce((sum, k) => sum + (statuses[k] ?? 0), 0);

/** Waits until `count` transactions created since `since` have a final status; throws after `timeoutMs`. */
export async function waitUntilFinal(sql: Sql, since: Date, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (finalCount(await statusCounts(sql, since)) < count) {
    if (Date.now() > deadline) throw new Error(`${count} transactions not final after ${timeoutMs} ms: ${JSON.stringify(await statusCounts(sql, since))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Percentiles {
  p50: number;
  p99: number;
}

/**
 * Per transaction created since `since`, from its status changes' own timestamps (ms):
 * accepted (PENDING) → first SUBMITTED (queue wait + simulate/nonce/sign/broadcast), first
 * SUBMITTED → CONFIRMED (block wait + the next receipt check), and accepted → CONFIRMED.
 */
export async function acceptLatencies(sql: Sql, since: Date): Promise<{ toBroadcast: Percentiles | null; broadcastToConfirmed: Percentiles | null; toConfirmed: Percentiles | null }> {
  const { rows: [r] } = await sql.query<{ ps50: number | null; ps99: number | null; sc50: number | null; sc99: number | null; ac50: number | null; ac99: number | null }>(
    `with s as (
       select t.id,
              min(c.created_at) filter (where c.status = 'PENDING') as pending,
              min(c.created_at) filter (where c.status = 'SUBMITTED') as submitted,
              min(c.created_at) filter (where c.status = 'CONFIRMED') as confirmed
         from transaction_status_change c join "transaction" t on t.project_id = c.project_id and t.id = c.transaction_id
        where t.created_at >= $1 group by t.id)
     select percentile_cont(0.5) within group (order by extract(epoch from submitted - pending)) * 1000 as ps50,
            percentile_cont(0.99) within group (order by extract(epoch from submitted - pending)) * 1000 as ps99,
            percentile_cont(0.5) within group (order by extract(epoch from confirmed - submitted)) * 1000 as sc50,
            percentile_cont(0.99) within group (order by extract(epoch from confirmed - submitted)) * 1000 as sc99,
            percentile_cont(0.5) within group (order by extract(epoch from confirmed - pending)) * 1000 as ac50,
            percentile_cont(0.99) within group (order by extract(epoch from confirmed - pending)) * 1000 as ac99
       from s`,
    [since],
  );
  const pair = (p50: number | null | undefined, p99: number | null | undefined) => (p50 == null ? null : { p50, p99: p99 ?? NaN });
  return { toBroadcast: pair(r?.ps50, r?.ps99), broadcastToConfirmed: pair(r?.sc50, r?.sc99), toConfirmed: pair(r?.ac50, r?.ac99) };
}
