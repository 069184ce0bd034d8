import { useState } from "preact/hooks";
import { api, ApiError, projectPath } from "./api";
import type { Session } from "./session";

/**
 * Asks for the project and a key of it, and checks them with one read of the transaction list
 * before keeping them. The key field is a password field: the browser does not show or keep it.
 */
export function Login(props: { onLogin: (session: Session) => void }) {
  const [projectId, setProjectId] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const session = { projectId: projectId.trim(), token: token.trim() };
    setBusy(true);
    setError(null);
    try {
      await api(session, "GET", projectPath(session, "transact", "/transactions"), new URLSearchParams({ limit: "1" }));
      setToken("");
      props.onLogin(session);
    } catch (err) {
      setError(err instanceof ApiError ? `${err.status}: ${err.message}` : "The relay did not answer");
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <h1>Relay console</h1>
      <form onSubmit={submit} aria-describedby="login-help">
        <p id="login-help">
          Open a project with one of its API keys, or any project with the operator's ADMIN_TOKEN (read only). The key stays in this tab only and is sent to the relay as a Bearer
          token.
        </p>
        <label>
          Project id
          <input name="projectId" required autoComplete="off" spellcheck={false} value={projectId} onInput={(e) => setProjectId(e.currentTarget.value)} />
        </label>
        <label>
          API key or admin token
          <input name="token" type="password" required autoComplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Open"}
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
