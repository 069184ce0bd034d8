import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "./api";
import { isOperator, type Session } from "./session";

interface Project {
  projectId: string;
  name: string;
}

/**
 * Asks for an API key or the operator's ADMIN_TOKEN and reads the projects it opens
 * (GET /transact/projects): a key opens its own project at once; the operator picks one. The key
 * field is a password field: the browser does not show it, and it is not kept before it worked.
 */
export function Login(props: { onLogin: (session: Session) => void; token?: string }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [choice, setChoice] = useState<{ token: string; projects: Project[] } | null>(null);
  const [picked, setPicked] = useState("");

  const open = async (given: string) => {
    setBusy(true);
    setError(null);
    try {
      const { projects } = await api<{ projects: Project[] }>({ token: given, projectId: "" }, "GET", "/transact/projects");
      if (projects.length === 1 && !isOperator({ token: given, projectId: "" })) {
        props.onLogin({ token: given, projectId: projects[0]!.projectId });
        return;
      }
      if (projects.length === 0) throw new ApiError(404, "No project to open");
      setChoice({ token: given, projects });
      setPicked(projects[0]!.projectId);
    } catch (err) {
      setError(err instanceof ApiError ? `${err.status}: ${err.message}` : "The relay did not answer");
    } finally {
      setBusy(false);
      setToken("");
    }
  };

  // Switching project: the token is known, only the choice is asked for.
  useEffect(() => {
    if (props.token) void open(props.token);
  }, [props.token]);

  if (choice) {
    return (
      <main class="login">
        <h1>Relay console</h1>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            props.onLogin({ token: choice.token, projectId: picked });
          }}
        >
          <p>The admin token reads every project, and changes none. Which one?</p>
          <label>
            Project
            <select name="project" value={picked} onChange={(e) => setPicked(e.currentTarget.value)}>
              {choice.projects.map((p) => (
                <option value={p.projectId}>
                  {p.name} ({p.projectId})
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Open project</button>
        </form>
      </main>
    );
  }

  return (
    <main class="login">
      <h1>Relay console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void open(token.trim());
        }}
        aria-describedby="login-help"
      >
        <p id="login-help">
          Open a project with one of its API keys, or any project with the operator's ADMIN_TOKEN (read only). The key stays in this tab only and is sent to the relay as a Bearer
          token.
        </p>
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
