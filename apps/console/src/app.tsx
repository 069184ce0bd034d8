import { useState } from "preact/hooks";
import { CallbacksPage } from "./callbacks-page";
import { ChartsPage } from "./charts-page";
import { Link } from "./link";
import { Login } from "./login";
import { hrefOf, navigate, useRoute, type Route } from "./router";
import { clearSession, isOperator, loadSession, saveSession, type Session } from "./session";
import { TransactionDetail } from "./transaction-detail";
import { TransactionsPage } from "./transactions-page";
import { WalletsPage } from "./wallets-page";

const NAV: { label: string; route: Route }[] = [
  { label: "Transactions", route: { page: "transactions" } },
  { label: "Wallets", route: { page: "wallets" } },
  { label: "Event callbacks", route: { page: "callbacks" } },
  { label: "Activity", route: { page: "activity" } },
];

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const route = useRoute();

  if (!session || !session.projectId) {
    return (
      <Login
        token={session?.token}
        onLogin={(s) => {
          saveSession(s);
          setSession(s);
        }}
      />
    );
  }
  const switchProject = () => {
    const s = { token: session.token, projectId: "" };
    saveSession(s);
    setSession(s);
    navigate(hrefOf({ page: "transactions" }));
  };
  const signOut = () => {
    clearSession();
    setSession(null);
    navigate(hrefOf({ page: "transactions" }));
  };

  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Relay console</span>
        <nav aria-label="Pages">
          {NAV.map((n) => (
            <Link href={hrefOf(n.route)} aria-current={n.route.page === route.page || (route.page === "transaction" && n.route.page === "transactions") ? "page" : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <span class="project" title="Project">
          {isOperator(session) ? "Operator (read only) · " : ""}Project <span class="mono">{session.projectId}</span>
        </span>
        {isOperator(session) && (
          <button type="button" class="secondary" onClick={switchProject}>
            Switch project
          </button>
        )}
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1}>
        {route.page === "transaction" ? (
          <TransactionDetail session={session} id={route.id} />
        ) : route.page === "callbacks" ? (
          <CallbacksPage session={session} />
        ) : route.page === "wallets" ? (
          <WalletsPage session={session} />
        ) : route.page === "activity" ? (
          <ChartsPage session={session} />
        ) : (
          <TransactionsPage session={session} />
        )}
      </main>
    </>
  );
}
