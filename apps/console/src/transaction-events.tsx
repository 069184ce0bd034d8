import { api, projectPath } from "./api";
import { time } from "./format";
import type { Session } from "./session";
import type { TransactionEvent } from "./types";
import { usePoll } from "./use-poll";

const TONE = { DELIVERED: "ok", PENDING: "wait", FAILED: "bad", ABANDONED: "muted" } as const;

/** The events a transaction produced and where each went, read again every 2 s while shown. */
export function TransactionEvents(props: { session: Session; id: string }) {
  const { session, id } = props;
  const path = projectPath(session, "transact", `/transactions/${encodeURIComponent(id)}/events`);
  const events = usePoll(() => api<{ events: TransactionEvent[] }>(session, "GET", path), path, 2000);
  return (
    <>
      <h2>Events sent</h2>
      {events.error && <p class="error">{events.error}</p>}
      {events.data?.events.length === 0 && <p>None yet.</p>}
      {events.data && events.data.events.length > 0 && (
        <ol class="events">
          {events.data.events.map((e) => (
            <li data-event-id={e.eventId}>
              <strong>{statusOf(e.payload) ?? e.eventType}</strong> <time dateTime={e.createdAt}>{time(e.createdAt)}</time>{" "}
              <span class="mono reason">{e.eventId}</span>
              {e.dispatchedAt === null ? (
                <p class="reason">Waiting to be dispatched.</p>
              ) : e.deliveries.length === 0 ? (
                <p class="reason">No callback registration was there to receive it.</p>
              ) : (
                <ul class="deliveries">
                  {e.deliveries.map((d) => (
                    <li data-delivery-id={d.deliveryId} data-delivery-status={d.status}>
                      <span class={`badge ${TONE[d.status]}`}>{d.status}</span> <span class="mono">{d.callbackURL}</span> · {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                      {d.lastResponseStatus !== null && <> · last answer {d.lastResponseStatus === 0 ? "none" : d.lastResponseStatus}</>}
                      {d.status === "PENDING" && d.nextAttemptAt && <> · next {time(d.nextAttemptAt)}</>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/** The status a TransactionStatusChange event moved to; undefined for other events. */
function statusOf(payload: unknown): string | undefined {
  const data = (payload as { data?: { status?: unknown } } | null)?.data;
  return typeof data?.status === "string" ? data.status : undefined;
}
