import workspaceTeardown from "../../packages/testing/src/jest/global-teardown";
import { destroyPrivatePostgres, type PrivatePostgres } from "./private-postgres";

const KEY = Symbol.for("relay.faults.postgres");

export default async function globalTeardown(): Promise<void> {
  await workspaceTeardown();
  const pg = (globalThis as Record<symbol, unknown>)[KEY] as PrivatePostgres | undefined;
  if (pg) destroyPrivatePostgres(pg);
}
