import type { Session } from "./session";

/** An answer of the API other than 2xx, with the API's own message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the relay's public API (the one the clients use) on this origin with the session's key. */
export async function api<T>(session: Session, method: "GET" | "POST", path: string, query?: URLSearchParams): Promise<T> {
  const url = query && [...query.keys()].length > 0 ? `${path}?${query.toString()}` : path;
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${session.token}`, accept: "application/json", ...(method === "POST" ? { "content-type": "application/json" } : {}) },
    body: method === "POST" ? "{}" : undefined,
    cache: "no-store",
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = body && typeof body === "object" && "message" in body && typeof body.message === "string" ? body.message : `HTTP ${res.status}`;
    throw new ApiError(res.status, message);
  }
  return body as T;
}

/** Path of a project's resource, its id encoded. */
export const projectPath = (session: Session, area: "transact" | "wallet" | "webhook", rest: string): string =>
  `/${area}/project/${encodeURIComponent(session.projectId)}${rest}`;
