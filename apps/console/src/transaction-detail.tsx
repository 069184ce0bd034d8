import { useState } from "preact/hooks";
import { api, ApiError, projectPath } from "./api";
import { gwei, time } from "./format";
import { Link } from "./link";
import { hrefOf } from "./router";
import { isOperator, type Session } from "./session";
import { StatusBadge } from "./status-badge";
import { TransactionEvents } from "./transaction-events";
import { UNFINISHED, type TransactionRecord } from "./types";
import { usePoll } from "./use-poll";

/**
 * One transaction as its read route gives it, read again every 1.5 s: its statuses in order, its
 * attempts with their fees, its receipt; cancel while unfinished, speed up while SUBMITTED, as
 * the control routes allow (they answer 409 otherwise, shown as is).
 */
export function TransactionDetail(props: { session: Session; id: string }) {
  const { session, id } = props;
  const path = projectPath(session, "transact", `/transactions/${encodeURIComponent(id)}`);
  const tx = usePoll(() => api<TransactionRecord>(session, "GET", path), path);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);

  const control = async (action: "cancel" | "speedUp") => {
    setNotice(null);
    try {
      const answer = await api<Record<string, unknown>>(session, "POST", `${path}/${action}`);
      setNotice({ ok: true, text: `${action === "cancel" ? "Cancel" : "Speed-up"}: ${String(answer.cancel ?? answer.speedUp ?? "requested")}` });
      tx.reload();
    } catch (e) {
      setNotice({ ok: false, text: e instanceof ApiError ? `${e.status}: ${e.message}` : String(e) });
    }
  };

  const t = tx.data;
  // The admin token only reads (the API answers 403): the buttons are for a project's key.
  const readOnly = isOperator(session);
  return (
    <section aria-labelledby="detail-title">
      <p>
        <Link href={hrefOf({ page: "transactions" })}>← All transactions</Link>
      </p>
      <h1 id="detail-title">
        Transaction <span class="mono">{id}</span>
      </h1>
      {tx.error && (
        <p role="alert" class="error">
          {tx.error}
        </p>
      )}
      {t && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd data-testid="detail-status">
              <StatusBadge status={t.status} />
            </dd>
            <dt>Chain</dt>
            <dd>{t.chainId}</dd>
            <dt>Call</dt>
            <dd class="mono">
              {t.functionSignature} on {t.contractAddress}
            </dd>
            <dt>Wallet</dt>
            <dd class="mono">{t.from ?? "—"}</dd>
            <dt>Nonce</dt>
            <dd>{t.nonce ?? "—"}</dd>
            <dt>Hash</dt>
            <dd class="mono">{t.hash ?? "—"}</dd>
            <dt>Block</dt>
            <dd>{t.blockNumber ?? "—"}</dd>
            {t.error && (
              <>
                <dt>Error</dt>
                <dd class="error">{t.error}</dd>
              </>
            )}
          </dl>
          <div class="actions">
            <button type="button" disabled={readOnly || !UNFINISHED.includes(t.status)} onClick={() => void control("cancel")}>
              Cancel
            </button>
            <button type="button" disabled={readOnly || t.status !== "SUBMITTED"} onClick={() => void control("speedUp")}>
              Speed up
            </button>
            {readOnly && <span class="reason">The admin token reads only: open the project with its API key to cancel or speed up.</span>}
            {notice && (
              <span role="status" class={notice.ok ? "ok-text" : "error"}>
                {notice.text}
              </span>
            )}
          </div>
          <h2>Timeline</h2>
          <ol class="timeline">
            {t.history.map((h) => (
              <li>
                <StatusBadge status={h.status} /> <time dateTime={h.at}>{time(h.at)}</time>
                {h.reason && <span class="reason"> — {h.reason}</span>}
              </li>
            ))}
          </ol>
          <h2>Attempts</h2>
          {t.attempts.length === 0 ? (
            <p>None sent yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Hash</th>
                    <th scope="col">Nonce</th>
                    <th scope="col">Fees</th>
                    <th scope="col">Gas limit</th>
                    <th scope="col">Broadcast</th>
                  </tr>
                </thead>
                <tbody>
                  {t.attempts.map((a) => (
                    <tr>
                      <td class="mono">
                        {a.hash}
                        {a.cancel && " (cancel)"}
                      </td>
                      <td>{a.nonce}</td>
                      <td>{a.gasPrice ? gwei(a.gasPrice) : `${gwei(a.maxFeePerGas)} max, ${gwei(a.maxPriorityFeePerGas)} tip`}</td>
                      <td>{a.gasLimit}</td>
                      <td>{time(a.broadcastAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <TransactionEvents session={session} id={id} />
          <h2>Receipt</h2>
          {t.receipt ? (
            <dl class="facts">
              {Object.entries(t.receipt).map(([k, v]) => (
                <>
                  <dt>{k}</dt>
                  <dd class="mono">{v === null ? "—" : String(v)}</dd>
                </>
              ))}
            </dl>
          ) : (
            <p>None yet: a receipt is recorded when the transaction is CONFIRMED or REVERTED.</p>
          )}
        </>
      )}
    </section>
  );
}
