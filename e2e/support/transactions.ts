import type { createPool } from "@relay/db";
import type { AppProcess } from "@relay/testing";

type Pool = ReturnType<typeof createPool>;

const FINAL = ["CONFIRMED", "REVERTED", "INVALID", "FAILED"];

export const SET_ORDER = "function setOrder((uint256 id, address owner, uint8[] flags) order)";

/** POST /transact/sendTransaction to the gateway process; the status and the parsed body. */
export async function sendTransaction(gatewayUrl: string, apiKey: string, body: Record<string, unknown>) {
  const res = await fetch(`${gatewayUrl}/transact/sendTransaction`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { transactionId?: string; message?: string } };
}

/**
 * Polls Postgres until `count` transactions of the project are final (one query instead of a
 * read per transaction). On time-out the error shows the statuses and the workers' last lines.
 */
export async function waitUntilAllFinal(pool: Pool, projectId: string, count: number, timeoutMs: number, workers: AppProcess[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let byStatus: Record<string, number> = {};
  while (Date.now() < deadline) {
    const { rows } = await pool.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM transaction WHERE project_id = $1 GROUP BY status`,
      [projectId],
    );
    byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    if (FINAL.reduce((sum, s) => sum + (byStatus[s] ?? 0), 0) === count) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  const tails = workers.map((w) => `--- ${w.name}\n${w.tail()}`).join("\n");
  throw new Error(`not all ${count} transactions final after ${timeoutMs} ms: ${JSON.stringify(byStatus)}\n${tails}`);
}
