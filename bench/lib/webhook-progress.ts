import type { Sql } from "@relay/db";

export interface DeliveryCounts {
  /** TransactionStatusChange events written for the project. */
  events: number;
  delivered: number;
  /** Given up on: FAILED (retries exhausted) or ABANDONED (registration disabled). */
  failed: number;
}

/**
 * A project's status-change events written since `since`, and how their deliveries stand
 * (webhook_delivery.status; one delivery per event and registration, created at dispatch).
 */
export async function deliveryCounts(sql: Sql, projectId: string, since: Date): Promise<DeliveryCounts> {
  const { rows: [r] } = await sql.query<{ events: number; delivered: number; failed: number }>(
    `select (select count(*)::int from event where project_id = $1 and event_type = 'TransactionStatusChange' and created_at >= $2) as events,
            count(*) filter (where d.status = 'DELIVERED')::int as delivered,
            count(*) filter (where d.status in ('FAILED', 'ABANDONED'))::int as failed
       from webhook_delivery d join event e on e.id = d.event_id
      where e.project_id = $1 and e.created_at >= $2`,
    [projectId, since],
  );
  return { events: r?.events ?? 0, delivered: r?.delivered ?? 0, failed: r?.failed ?? 0 };
}

/** Waits until every such event since `since` is delivered or given up on; throws after `timeoutMs`. */
export async function waitUntilDelivered(sql: Sql, projectId: string, since: Date, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await deliveryCounts(sql, projectId, since);
    if (d.delivered + d.failed >= d.events) return;
    if (Date.now() > deadline) throw new Error(`events not delivered after ${timeoutMs} ms: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
