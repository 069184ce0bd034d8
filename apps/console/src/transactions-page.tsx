import { useState } from "preact/hooks";
import { api, projectPath } from "./api";
import { short, time } from "./format";
import { Link } from "./link";
import { hrefOf } from "./router";
import type { Session } from "./session";
import { StatusBadge } from "./status-badge";
import { STATUSES, type TransactionList } from "./types";
import { usePoll } from "./use-poll";

interface Filters {
  status: string;
  chainId: string;
  fromAddress: string;
  createdAfter: string;
  createdBefore: string;
}

/** `function spend(uint256 n)` → `spend`. */
const callName = (signature: string): string => signature.replace(/^function\s+/, "").split("(")[0] ?? signature;

const NONE: Filters = { status: "", chainId: "", fromAddress: "", createdAfter: "", createdBefore: "" };

/** The list route's query for the filters; times typed in local time are sent as UTC instants. */
function queryOf(f: Filters): URLSearchParams {
  const q = new URLSearchParams({ limit: "50" });
  if (f.status) q.set("status", f.status);
  if (f.chainId.trim()) q.set("chainId", f.chainId.trim());
  if (f.fromAddress.trim()) q.set("fromAddress", f.fromAddress.trim());
  if (f.createdAfter) q.set("createdAfter", new Date(f.createdAfter).toISOString());
  if (f.createdBefore) q.set("createdBefore", new Date(f.createdBefore).toISOString());
  return q;
}

/** The project's transactions, newest first, read again every 1.5 s while shown. */
export function TransactionsPage(props: { session: Session }) {
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const query = queryOf(filters);
  const list = usePoll(() => api<TransactionList>(props.session, "GET", projectPath(props.session, "transact", "/transactions"), query), query.toString());
  const field = (name: keyof Filters) => ({
    name,
    value: draft[name],
    onInput: (e: Event) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <section aria-labelledby="tx-title">
      <h1 id="tx-title">Transactions</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <label>
          Status
          <select {...field("status")}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Chain id
          <input inputMode="numeric" placeholder="any" {...field("chainId")} />
        </label>
        <label>
          Wallet
          <input placeholder="0x… (any)" spellcheck={false} {...field("fromAddress")} />
        </label>
        <label>
          From
          <input type="datetime-local" {...field("createdAfter")} />
        </label>
        <label>
          Until
          <input type="datetime-local" {...field("createdBefore")} />
        </label>
        <div class="filter-actions">
          <button type="submit">Apply</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(NONE);
              setFilters(NONE);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      {list.data === null && !list.error && <p>Loading…</p>}
      {list.data && list.data.transactions.length === 0 && <p>No transactions match.</p>}
      {list.data && list.data.transactions.length > 0 && (
        <div class="table-wrap">
          <table class="transactions">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Transaction</th>
                <th scope="col" class="hide-narrow">Chain</th>
                <th scope="col" class="hide-narrow">Call</th>
                <th scope="col" class="hide-narrow">Wallet</th>
                <th scope="col" class="hide-narrow">Hash</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.transactions.map((t) => (
                <tr key={t.transactionId} data-transaction-id={t.transactionId} data-status={t.status}>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td>
                    <Link href={hrefOf({ page: "transaction", id: t.transactionId })}>{t.transactionId.slice(0, 8)}</Link>
                  </td>
                  <td class="hide-narrow">{t.chainId}</td>
                  <td class="mono hide-narrow" title={t.contractAddress}>
                    {callName(t.functionSignature)}
                  </td>
                  <td class="mono hide-narrow" title={t.from ?? ""}>
                    {short(t.from)}
                  </td>
                  <td class="mono hide-narrow" title={t.hash ?? ""}>
                    {short(t.hash)}
                  </td>
                  <td>{time(t.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
