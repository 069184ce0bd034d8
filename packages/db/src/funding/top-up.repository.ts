import { randomUUID } from "node:crypto";
import type { TransactionStatus } from "@relay/lifecycle";
import type { Sql } from "../client";
import { INSERT_TOP_UP, LIST_TOP_UPS } from "./top-up.sql";

/** A top-up as the funding endpoint shows it. Wei, chain ids and blocks as decimal strings. */
export interface TopUpRecord {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  chainId: string;
  /** The project whose wallet is topped up. */
  projectId: string;
  fromAddress: string;
  toAddress: string;
  amount: string;
  hash: string | null;
  blockNumber: string | null;
  status: TransactionStatus;
  /** The signed bytes of the attempt `hash` names, hex without 0x; null before one is broadcast. */
  signedTxn: string | null;
}

export interface NewTopUp {
  /** The transaction (of the funding wallet's project) and what it sends. */
  projectId: string;
  id: string;
  amountWei: bigint;
  fromAddress: string;
}

type Row = Omit<TopUpRecord, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string };

/**
 * Top-ups of managed gas (docs/funding.md): transactions of kind FUNDING, which the tx-worker then
 * sends like any other.
 */
export function createTopUpRepository(sql: Sql) {
  return {
    /**
     * Inserts the top-up a balance check of `address` calls for, if its project has managed gas on
     * the chain, the balance is below the target, no top-up of the wallet is unfinished and none
     * was mined after the block the balance was read at (INSERT_TOP_UP). Null when none is due.
     */
    topUpIfDue: async (chainId: bigint, address: string, observed: { balanceWei: bigint; blockNumber: number }): Promise<NewTopUp | null> => {
      const { rows } = await sql.query<{ projectId: string; id: string; valueWei: string; fromAddress: string }>(
        { name: "topUp.insert", text: INSERT_TOP_UP },
        [chainId.toString(), address, observed.balanceWei.toString(), observed.blockNumber, randomUUID(), randomUUID()],
      );
      const row = rows[0];
      return row ? { projectId: row.projectId, id: row.id, amountWei: BigInt(row.valueWei), fromAddress: row.fromAddress } : null;
    },

    /** A project's top-ups, newest first, and how many it has in all. */
    listByFundedProject: async (projectId: string, page: { limit: number; offset: number }): Promise<{ total: number; topUps: TopUpRecord[] }> => {
      const { rows } = await sql.query<{ total: number; page: Row[] }>({ name: "topUp.list", text: LIST_TOP_UPS }, [projectId, page.limit, page.offset]);
      const row = rows[0]!;
      return { total: row.total, topUps: row.page.map((r) => ({ ...r, createdAt: new Date(r.createdAt), updatedAt: new Date(r.updatedAt) })) };
    },
  };
}

export type TopUpRepository = ReturnType<typeof createTopUpRepository>;
