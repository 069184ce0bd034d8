import type { TestDatabase } from "../test-database";

/** What the global setup hands to the global teardown: jest runs both in one process, one realm. */
export interface RunState {
  database: TestDatabase;
  staleCleanup: Promise<unknown>;
  /** The run's SoftHSM2 store; null when softhsm2 is not installed. */
  softHsm: { remove: () => void } | null;
  /** The pooled run's PgBouncer (RELAY_TEST_POOLER=transaction); null otherwise. */
  pooler: { stop: () => Promise<void> } | null;
}

const KEY = Symbol.for("relay.testing.run-state");
const store = globalThis as typeof globalThis & { [KEY]?: RunState };

export const saveRunState = (state: RunState): void => {
  store[KEY] = state;
};

export const takeRunState = (): RunState | undefined => {
  const state = store[KEY];
  delete store[KEY];
  return state;
};
