import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export type Database = PrismaClient;

export interface DatabaseSettings {
  url: string;
  /** Pool size of this process; each replica holds its own pool (see docs/operations.md). */
  poolSize?: number;
  /** Fail a connection attempt after this long instead of hanging while Postgres is down. */
  connectTimeoutMs?: number;
}

/** The one Prisma client of a process, on the pg driver adapter (no Prisma engine binaries). */
export function createDatabase(settings: DatabaseSettings): Database {
  const adapter = new PrismaPg({
    connectionString: settings.url,
    max: settings.poolSize ?? 10,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 5000,
  });
  return new PrismaClient({ adapter });
}
