import { setFlagsFromString } from "node:v8";

/**
 * How every app process is sized: node flags and environment that its launchers pass (the quick
 * start's supervisor, the tests' and benchmarks' process groups; the Docker image sets the same
 * in NODE_OPTIONS and ENV), and the heap growth each process sets for itself at start.
 *
 * Measured in the end-to-end benchmark (10 000 sendTransaction calls, two tx-workers), the peak
 * resident memory was V8 heap that was already garbage plus malloc'd native memory, not live data:
 * a full collection under load left 47–58 MB of heap in the gateway and in a tx-worker.
 * See docs/architecture.md ("Memory") for the numbers behind each setting.
 */

/**
 * Node's own 16 MB semi-space, named so that a Node upgrade cannot change it unseen. It was 64:
 * that young generation (~130 MB committed for its two halves) was the largest single part of
 * each process's peak.
 */
export const APP_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=16"];

/**
 * glibc gives each thread that allocates its own 64 MB malloc arena; V8's compiler and GC helper
 * threads and libuv's pool each kept tens of MB of freed native memory there. Two arenas on the
 * two cores these run on. Read by glibc when the process starts, so it cannot be set from inside.
 */
export const APP_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

/**
 * Heap growth after a full collection: the old generation may grow to 1.5 × what survived before
 * the next one (V8 picks up to 4 × when the process is busy, which let 50 MB of live heap grow
 * to 150–180 MB of mostly garbage under a burst). V8 reads the setting at each collection, so it
 * can be set once the process runs; NODE_OPTIONS does not accept it.
 */
export const HEAP_GROWTH_FLAG = "--heap-growing-percent=50";

export function limitHeapGrowth(): void {
  setFlagsFromString(HEAP_GROWTH_FLAG);
}
