/**
 * The credential of this tab: kept in sessionStorage only (gone when the tab closes), never put in
 * the page. The project id is not a secret; the token is only ever sent as a Bearer header.
 */
export interface Session {
  projectId: string;
  token: string;
}

const KEY = "relay-console-session";

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    return typeof parsed.projectId === "string" && typeof parsed.token === "string" ? { projectId: parsed.projectId, token: parsed.token } : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** An API key has the `rk_` form; anything else a user opens the console with is the operator's ADMIN_TOKEN, which only reads. */
export const isOperator = (session: Session): boolean => !session.token.startsWith("rk_");
