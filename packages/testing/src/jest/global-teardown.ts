/** Drops the run's database; RELAY_TEST_KEEP_DATABASE=1 keeps it to look at after a failure. */
import { takeRunState } from "./run-state";

export default async function globalTeardown(): Promise<void> {
  const state = takeRunState();
  if (!state) return;
  state.softHsm?.remove();
  await state.pooler?.stop();
  const keep = process.env.RELAY_TEST_KEEP_DATABASE === "1";
  if (keep) process.stderr.write(`Kept the test database ${state.database.name}\n`);
  await Promise.all([keep ? undefined : state.database.drop(), state.staleCleanup]);
}
