import type { Logger } from "@relay/core";
import type { MetricsRepository } from "@relay/db";
import { scrapedGauges, type Registry } from "@relay/metrics";
import { jobCatalog, type JobName, type Producer } from "@relay/queue";

export interface SharedStateMetricsDeps {
  registry: Registry;
  /** The catalog's queues, with the configured prefix. */
  queue: Producer["queue"];
  records: Pick<MetricsRepository, "transactionCounts" | "walletBalances">;
  logger: Logger;
}

/** The states an operator watches; BullMQ's names (`waiting` is its `wait` list). */
const QUEUE_STATES = ["waiting", "active", "delayed", "failed"] as const;

const JOB_NAMES = Object.keys(jobCatalog) as JobName[];

/**
 * Gauges of the state every gateway replica shares, read when Prometheus scrapes (so every replica
 * reports the same numbers; aggregate them with max, not sum): jobs per queue and state, from
 * Redis; transactions per chain and status, and the wallet balances the low-balance check
 * recorded, from Postgres.
 */
export function registerSharedStateMetrics(deps: SharedStateMetricsDeps): void {
  const { registry, logger } = deps;

  scrapedGauges(
    registry,
    {
      name: "queues",
      logger,
      read: async () => {
        const perQueue = await Promise.all(
          JOB_NAMES.map(async (name) => {
            const counts = await deps.queue(name).getJobCounts(...QUEUE_STATES);
            return QUEUE_STATES.map((state) => ({ queue: jobCatalog[name].queue, state, count: counts[state] ?? 0 }));
          }),
        );
        return perQueue.flat();
      },
    },
    [
      {
        name: "relay_queue_jobs",
        help: "Jobs per queue and state (waiting, active, delayed, failed), read from Redis at scrape time",
        labelNames: ["queue", "state"],
        labels: (r) => ({ queue: r.queue, state: r.state }),
        value: (r) => r.count,
      },
    ],
  );

  scrapedGauges(registry, { name: "transactions", logger, read: () => deps.records.transactionCounts() }, [
    {
      name: "relay_transactions",
      help: "Transactions per chain and status, read from Postgres at scrape time",
      labelNames: ["chain_id", "status"],
      labels: (r) => ({ chain_id: r.chainId, status: r.status }),
      value: (r) => r.count,
    },
  ]);

  const wallet = (r: { chainId: string; address: string }) => ({ chain_id: r.chainId, address: r.address });
  scrapedGauges(registry, { name: "wallet_balances", logger, read: () => deps.records.walletBalances() }, [
    {
      name: "relay_wallet_balance_wei",
      help: "Balance of a wallet on a chain in wei, as last seen by the low-balance check (chains with a low-balance threshold)",
      labelNames: ["chain_id", "address"],
      labels: wallet,
      value: (r) => Number(r.balanceWei),
    },
    {
      name: "relay_wallet_balance_low",
      help: "1 if the wallet's last seen balance is below its chain's low-balance threshold, else 0",
      labelNames: ["chain_id", "address"],
      labels: wallet,
      value: (r) => (r.low ? 1 : 0),
    },
    {
      name: "relay_wallet_balance_checked_timestamp_seconds",
      help: "When the wallet's balance was last checked (Unix seconds); a stale value means the check is not running",
      labelNames: ["chain_id", "address"],
      labels: wallet,
      value: (r) => r.checkedAt.getTime() / 1000,
    },
  ]);
}
