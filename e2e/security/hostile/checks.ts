import type { HttpAnswer } from "./http-client";
import type { Case, Endpoint } from "./endpoints";

/** Statuses a request that is not authenticated may get: refused by the body parser or by authentication, never further. */
const UNAUTHENTICATED = [400, 401, 413, 415, 431];

const describeCase = (c: Case, a: HttpAnswer) => {
  const body = c.body === undefined ? "(none)" : c.body.length > 300 ? `${c.body.length} bytes: ${c.body.subarray(0, 200).toString("utf8")}…` : c.body.toString("utf8");
  const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, String(v).length > 200 ? `${String(v).slice(0, 100)}… (${String(v).length})` : v]));
  return `${c.method} ${c.path.length > 300 ? `${c.path.slice(0, 300)}… (${c.path.length})` : c.path}\nheaders ${JSON.stringify(headers)}\nbody ${body}\n→ ${a.status} ${a.headers["content-type"] ?? ""} ${a.text.slice(0, 300)}`;
};

/**
 * What holds for every answer, whatever was sent: no 5xx; a status the endpoint may answer; every
 * error JSON with a `message` string; a request without a valid key stops at the parser or at
 * authentication. Throws with the whole exchange for fast-check to report and shrink.
 */
export function checkAnswer(endpoint: Endpoint, c: Case, a: HttpAnswer): void {
  const fail = (why: string) => {
    throw new Error(`${endpoint.name}: ${why}\n${describeCase(c, a)}`);
  };
  if (a.status >= 500) fail("server error");
  if (!endpoint.allowed.includes(a.status)) fail(`status ${a.status} is not one this endpoint may answer (${endpoint.allowed.join(", ")})`);
  if ((c.auth === "none" || c.auth === "bad") && !UNAUTHENTICATED.includes(a.status)) fail("a request without a valid API key got past authentication");
  if (a.status >= 400) {
    if (!String(a.headers["content-type"] ?? "").startsWith("application/json")) fail("error answer is not JSON");
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      fail("error answer does not parse as JSON");
    }
    const message = (body as { message?: unknown } | null)?.message;
    if (typeof message !== "string" || message.length === 0) fail("error answer has no `message` string");
    // A message says what is wrong; it does not echo kilobytes of the request back.
    if ((message as string).length > 1_000) fail(`error message is ${(message as string).length} characters long`);
  }
}
