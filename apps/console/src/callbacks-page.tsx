import { useState } from "preact/hooks";
import { api, ApiError, projectPath } from "./api";
import { time } from "./format";
import { isOperator, type Session } from "./session";
import type { CallbackStat, EventCallback } from "./types";
import { usePoll } from "./use-poll";

const delivered = (s: CallbackStat): boolean => s.responseStatus >= 200 && s.responseStatus < 300;

/** A receiver is failing when its latest attempt was not answered with a 2xx. */
const failing = (c: EventCallback): boolean => !c.disabled && c.stats.length > 0 && !delivered(c.stats[0]!);

const codeOf = (s: CallbackStat): string => (s.responseStatus === 0 ? "no answer" : String(s.responseStatus));

/**
 * The project's event callback registrations with the delivery log the API keeps for each (its
 * latest attempts: response code, time taken, error), read again every 2 s. A failing receiver is
 * marked in red with the codes it answered.
 */
export function CallbacksPage(props: { session: Session }) {
  const { session } = props;
  const list = usePoll(() => api<EventCallback[]>(session, "GET", projectPath(session, "webhook", "/eventCallbacks")), session.projectId, 2000);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  // The admin token only reads (the API answers 403): redelivery is for a project's key.
  const canRedeliver = !isOperator(session);

  const redeliver = async (callbackId: string, s: CallbackStat) => {
    setNotice(null);
    try {
      await api(session, "POST", projectPath(session, "webhook", `/eventCallback/${encodeURIComponent(callbackId)}/delivery/${encodeURIComponent(s.data?.deliveryId ?? "")}/redeliver`));
      setNotice({ ok: true, text: `Event ${s.data?.eventId ?? ""} is being sent again` });
      list.reload();
    } catch (e) {
      setNotice({ ok: false, text: e instanceof ApiError ? `${e.status}: ${e.message}` : String(e) });
    }
  };

  return (
    <section aria-labelledby="cb-title">
      <h1 id="cb-title">Event callbacks</h1>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      {notice && (
        <p role="status" class={notice.ok ? "ok-text" : "error"}>
          {notice.text}
        </p>
      )}
      {list.data === null && !list.error && <p>Loading…</p>}
      {list.data && list.data.length === 0 && <p>No event callbacks are registered for this project.</p>}
      {list.data?.map((c) => {
        const bad = failing(c);
        const codes = [...new Set(c.stats.filter((s) => !delivered(s)).map(codeOf))];
        return (
          <article class={`callback${bad ? " failing-card" : ""}`} data-callback-id={c.id} data-failing={bad ? "true" : "false"} aria-labelledby={`cb-${c.id}`}>
            <h2 id={`cb-${c.id}`} class="mono">
              {c.callbackURL}
            </h2>
            <p>
              {c.eventType} · {c.disabled ? <span class="badge muted">disabled: {c.disabledReason ?? "—"}</span> : <span class="badge ok">active</span>}
              {bad && (
                <span class="badge bad failing-flag" role="status">
                  failing: {codes.join(", ")}
                </span>
              )}
            </p>
            {c.stats.length === 0 ? (
              <p>No deliveries yet.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <caption class="sr-only">Latest delivery attempts to {c.callbackURL}</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Response</th>
                      <th scope="col">Took</th>
                      <th scope="col">Attempt</th>
                      <th scope="col" class="hide-narrow">Event</th>
                      <th scope="col" class="hide-narrow">Error</th>
                      {canRedeliver && !c.disabled && (
                        <th scope="col">
                          <span class="sr-only">Send again</span>
                        </th>
                      )}
                    </tr>
                  </thead>
                  <tbody>
                    {c.stats.map((s) => (
                      <tr class={delivered(s) ? "" : "failing"} data-event-id={s.data?.eventId} data-attempt={s.data?.attempt}>
                        <td>{time(s.createdAt)}</td>
                        <td class="status-code">{codeOf(s)}</td>
                        <td>{s.data?.durationMs === undefined ? "—" : `${s.data.durationMs} ms`}</td>
                        <td>{s.data?.attempt ?? "—"}</td>
                        <td class="mono hide-narrow">{s.data?.eventId ?? "—"}</td>
                        <td class="hide-narrow">{s.data?.error ?? ""}</td>
                        {canRedeliver && !c.disabled && (
                          <td>
                            {s.data?.deliveryId && (
                              <button type="button" class="secondary small" onClick={() => void redeliver(c.id, s)} aria-label={`Send event ${s.data.eventId ?? ""} again`}>
                                Redeliver
                              </button>
                            )}
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </article>
        );
      })}
    </section>
  );
}
