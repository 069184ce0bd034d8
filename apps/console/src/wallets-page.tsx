import { api, projectPath } from "./api";
import { ago, ether, short, time } from "./format";
import { nonceGap } from "./nonce-gap";
import type { Session } from "./session";
import { StatusBadge } from "./status-badge";
import { UNFINISHED, type TopUp, type TransactionList, type WalletRow } from "./types";
import { usePoll } from "./use-poll";

const IN_FLIGHT_PAGE = 100;

interface WalletsView {
  rows: WalletRow[];
  /** Unfinished transactions by `chainId:address` (lower case), from one page of the list. */
  inFlight: Map<string, number>;
  /** More unfinished transactions than one page: the counts are at least what is shown. */
  inFlightCapped: boolean;
  topUps: TopUp[] | null;
  topUpsError: string | null;
}

const keyOf = (chainId: number, address: string | null) => `${chainId}:${(address ?? "").toLowerCase()}`;

/** Three reads of the public API: the wallets with their data, the unfinished transactions, the top-ups. */
async function loadWallets(session: Session): Promise<WalletsView> {
  const [rows, unfinished, topUps] = await Promise.all([
    api<WalletRow[]>(session, "GET", projectPath(session, "wallet", "/wallets"), new URLSearchParams({ withData: "true" })),
    api<TransactionList>(session, "GET", projectPath(session, "transact", "/transactions"), new URLSearchParams({ status: UNFINISHED.join(","), limit: String(IN_FLIGHT_PAGE) })),
    // A key without the read scope on funding still sees its wallets.
    api<{ transactions: TopUp[] }>(session, "GET", `/funding/project/${encodeURIComponent(session.projectId)}/transactions`, new URLSearchParams({ limit: "20" })).then(
      (r) => ({ list: r.transactions, error: null }),
      (e: unknown) => ({ list: null, error: e instanceof Error ? e.message : String(e) }),
    ),
  ]);
  const inFlight = new Map<string, number>();
  for (const t of unfinished.transactions) inFlight.set(keyOf(t.chainId, t.from), (inFlight.get(keyOf(t.chainId, t.from)) ?? 0) + 1);
  return { rows, inFlight, inFlightCapped: unfinished.nextCursor !== null, topUps: topUps.list, topUpsError: topUps.error };
}

/** The chain's nonce (mined, and with pending ones when they differ), its age, and the gap to the relay's. */
function ChainNonceCell({ row }: { row: WalletRow }) {
  const chain = row.chainNonce;
  const gap = nonceGap(row);
  if (!chain) return <td class="chain-nonce" data-gap="unknown">not read yet</td>;
  return (
    <td class="chain-nonce" data-gap={gap.kind} data-latest={chain.latest} data-pending={chain.pending}>
      <span title={`mined ${chain.latest}, with pending ${chain.pending}`}>{chain.pending === chain.latest ? chain.latest : `${chain.latest} (${chain.pending} pending)`}</span>{" "}
      <span class="reason">{ago(chain.readAt, Date.now())}</span>
      {gap.kind === "in-flight" && <span class="badge wait">{gap.count} in flight</span>}
      {gap.kind === "reconcile" && (
        <span class="badge bad" title="The chain has mined nonces the relay has not handed out: a send from outside the relay; the relay reconciles it">
          chain ahead by {gap.count}
        </span>
      )}
    </td>
  );
}

/**
 * The project's wallets on every chain: balance as the relay last read it, low-balance state,
 * the relay's next nonce beside the chain's, confirmed and in-flight transactions; and the latest top-ups (managed gas).
 */
export function WalletsPage(props: { session: Session }) {
  const view = usePoll(() => loadWallets(props.session), props.session.projectId, 3000);
  const v = view.data;
  return (
    <section aria-labelledby="wallets-title">
      <h1 id="wallets-title">Wallets</h1>
      {view.error && (
        <p role="alert" class="error">
          {view.error}
        </p>
      )}
      {!v && !view.error && <p>Loading…</p>}
      {v && v.rows.length === 0 && <p>The project has no wallets.</p>}
      {v && v.rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Wallet</th>
                <th scope="col">Chain</th>
                <th scope="col">Balance</th>
                <th scope="col">Next nonce</th>
                <th scope="col">Chain nonce</th>
                <th scope="col">In flight</th>
                <th scope="col" class="hide-narrow">Confirmed</th>
                <th scope="col" class="hide-narrow">State</th>
              </tr>
            </thead>
            <tbody>
              {v.rows.map((w) => (
                <tr data-wallet={w.walletAddress} data-chain={w.chainId} data-low={w.lowBalance ? "true" : "false"} class={w.lowBalance ? "failing" : ""}>
                  <td class="mono" title={w.walletAddress}>
                    {short(w.walletAddress)}
                  </td>
                  <td>{w.chainId}</td>
                  <td>
                    {w.balance === undefined ? "not read yet" : ether(w.balance)}
                    {w.lowBalance && <span class="badge bad low-flag">low</span>}
                  </td>
                  <td>{w.nonce}</td>
                  <ChainNonceCell row={w} />
                  <td class="in-flight">
                    {v.inFlight.get(keyOf(w.chainId, w.walletAddress)) ?? 0}
                    {v.inFlightCapped ? "+" : ""}
                  </td>
                  <td class="hide-narrow">{w.txCount ?? "—"}</td>
                  <td class="hide-narrow">{w.retiredAt ? `retired ${time(w.retiredAt)}` : w.isActive ? "active" : "inactive"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Top-ups</h2>
      {v?.topUpsError && <p class="reason">Top-ups are not readable with this key ({v.topUpsError}).</p>}
      {v?.topUps?.length === 0 && <p>No top-ups: managed gas has not funded this project's wallets.</p>}
      {v?.topUps && v.topUps.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">To</th>
                <th scope="col">Chain</th>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col" class="hide-narrow">Hash</th>
              </tr>
            </thead>
            <tbody>
              {v.topUps.map((t) => (
                <tr>
                  <td>{time(t.createdAt)}</td>
                  <td class="mono">{short(t.toAddress)}</td>
                  <td>{t.chainId}</td>
                  <td>{ether(t.amount)}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td class="mono hide-narrow">{short(t.hash)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
