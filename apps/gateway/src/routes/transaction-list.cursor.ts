import { createHash } from "node:crypto";
import type { TransactionListPosition } from "@relay/db";

/**
 * The list's `cursor`: where the next page starts (the last row's creation time and id), the
 * project it was read for, and a check over both. Opaque to clients: base64url of
 * `projectId|createdAt ms|id|check`. The check catches a cursor altered or cut in transit; it is
 * not a secret (a cursor only points into a list the key may read anyway). A cursor of another
 * project's list is refused, not read in this one.
 */
const check = (body: string) => createHash("sha256").update(`relay transaction list cursor|${body}`).digest("base64url").slice(0, 16);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(projectId: string, position: TransactionListPosition): string {
  const body = `${projectId}|${position.createdAt.getTime()}|${position.id}`;
  return Buffer.from(`${body}|${check(body)}`, "utf8").toString("base64url");
}

/** The position a cursor names, or why it cannot be used (a message naming `cursor`). */
export function decodeCursor(projectId: string, cursor: string): TransactionListPosition | { error: string } {
  const bad = { error: "cursor is not one this list returned (pass nextCursor from the previous page unchanged)" };
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return bad;
  const parts = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (parts.length !== 4) return bad;
  const [project, ms, id, sum] = parts as [string, string, string, string];
  if (sum !== check(`${project}|${ms}|${id}`) || !UUID.test(project) || !UUID.test(id) || !/^\d{1,15}$/.test(ms)) return bad;
  if (project !== projectId) return { error: "cursor belongs to another project's list" };
  return { createdAt: new Date(Number(ms)), id };
}
