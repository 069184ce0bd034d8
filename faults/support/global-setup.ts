/**
 * The fault suite's global setup: a private Postgres cluster (scenarios restart it), then the
 * workspace's own setup on it (a fresh migrated database, a run id). Test files find the
 * cluster through RELAY_FAULTS_PG_DIR / RELAY_FAULTS_PG_PORT.
 */
import workspaceSetup from "../../packages/testing/src/jest/global-setup";
import { freePort } from "@relay/testing";
import { createPrivatePostgres } from "./private-postgres";

const KEY = Symbol.for("relay.faults.postgres");

export default async function globalSetup(): Promise<void> {
  const pg = createPrivatePostgres(await freePort());
  (globalThis as Record<symbol, unknown>)[KEY] = pg;
  process.env.RELAY_TEST_POSTGRES_URL = pg.url;
  process.env.RELAY_FAULTS_PG_DIR = pg.dataDir;
  process.env.RELAY_FAULTS_PG_PORT = String(pg.port);
  await workspaceSetup();
}
