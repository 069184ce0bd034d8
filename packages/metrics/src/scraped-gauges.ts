import { Gauge } from "prom-client";
import { toError, type Logger } from "@relay/core";
import { metricOnce, type Registry } from "./registry";

export interface ScrapedGauge<Row> {
  name: string;
  help: string;
  labelNames: readonly string[];
  labels: (row: Row) => Record<string, string>;
  /** The row's value; undefined leaves the row out of this gauge. */
  value: (row: Row) => number | undefined;
}

export interface ScrapeSource<Row> {
  /** Names the source in relay_scrape_source_up{source} and in logs. */
  name: string;
  /** Reads the current state (one query); called once per scrape however many gauges it feeds. */
  read: () => Promise<Row[]>;
  timeoutMs?: number;
  logger: Logger;
}

const UP = "relay_scrape_source_up";
const sourcesOf = new WeakMap<Registry, Array<() => Promise<unknown>>>();

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/**
 * Gauges whose values are read from shared state (Redis, Postgres) when Prometheus scrapes,
 * rather than kept in memory: every replica reports the same, current numbers. One read per
 * scrape feeds all the source's gauges. A read that fails or is slow leaves the gauges empty
 * (never stale numbers) and sets relay_scrape_source_up{source} to 0, so the scrape itself
 * still answers and an alert can say which source is down.
 */
export function scrapedGauges<Row>(registry: Registry, source: ScrapeSource<Row>, gauges: ScrapedGauge<Row>[]): void {
  const up = upGauge(registry);
  let inflight: Promise<Row[] | undefined> | undefined;
  // A read that timed out may still be running (a slow query): the next scrape does not start
  // another beside it, so slow scrapes cannot pile queries onto the pool the API uses.
  let running: Promise<Row[]> | undefined;
  const start = (): Promise<Row[]> => {
    if (running) return Promise.reject(new Error("the previous read has not finished"));
    const current = Promise.resolve().then(() => source.read());
    running = current;
    void current.then(
      () => (running = undefined),
      () => (running = undefined),
    );
    return current;
  };
  // A scrape starts collecting every metric of the registry before any read can answer: the
  // first gauge to ask starts the read, the others share it, and the next scrape reads again.
  const read = (): Promise<Row[] | undefined> => {
    inflight ??= withTimeout(start(), source.timeoutMs ?? 3000)
      .then(
        (rows) => {
          up.set({ source: source.name }, 1);
          return rows;
        },
        (e: unknown) => {
          up.set({ source: source.name }, 0);
          source.logger.warn({ err: toError(e), source: source.name }, "metrics source could not be read");
          return undefined;
        },
      )
      .finally(() => (inflight = undefined));
    return inflight;
  };
  sourcesOf.get(registry)?.push(read);

  for (const spec of gauges) {
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: [...spec.labelNames],
      registers: [registry],
      async collect() {
        const rows = await read();
        this.reset();
        for (const row of rows ?? []) {
          const value = spec.value(row);
          if (value !== undefined) this.set(spec.labels(row), value);
        }
      },
    });
  }
}

/** relay_scrape_source_up{source}: its collection waits for every source's read of this scrape. */
function upGauge(registry: Registry): Gauge<"source"> {
  if (!sourcesOf.has(registry)) sourcesOf.set(registry, []);
  return metricOnce(
    registry,
    UP,
    () =>
      new Gauge({
        name: UP,
        help: "1 if the shared state behind a group of gauges (queues, transactions, wallet balances) could be read at this scrape, else 0",
        labelNames: ["source"],
        registers: [registry],
        async collect() {
          await Promise.all((sourcesOf.get(registry) ?? []).map((read) => read()));
        },
      }),
  );
}
