import http from "node:http";

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Every request's latency in ms, sorted. */
  latencies: number[];
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/**
 * A closed-loop load: `concurrency` clients, each sending its next request as soon as the last
 * answered, over keep-alive connections, for `seconds`. Latency is measured per request.
 */
export async function closedLoop(options: {
  url: string;
  concurrency: number;
  seconds: number;
  headers: Record<string, string>;
  body: (i: number) => string;
}): Promise<LoadResult> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let counter = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const once = (body: string) =>
    new Promise<number>((resolve) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { ...options.headers, "content-length": Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", () => resolve(0));
      req.end(body);
    });

  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const status = await once(options.body(counter++));
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    statuses,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    latencies,
  };
}

/** Several load phases against the same target (e.g. alternating with a baseline) as one result. */
export function mergeLoads(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const statuses: Record<number, number> = {};
  for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n;
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  return {
    requests: latencies.length,
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    statuses,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    latencies,
  };
}
