import http from "node:http";
import { percentile } from "./load";

export interface FixedLoadResult {
  requests: number;
  statuses: Record<number, number>;
  /** From the first request sent to the last answer received. */
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** performance.now() of the first request and of the last answer. */
  startedAt: number;
  endedAt: number;
  /** A few answers that were not 200, for the report. */
  errorSamples: string[];
}

/**
 * A fixed number of requests (`count`) sent by `concurrency` closed-loop clients over keep-alive
 * connections; each client sends its next request as soon as the last one answered.
 */
export async function fixedCount(options: {
  url: string;
  concurrency: number;
  count: number;
  headers: Record<string, string>;
  body: (i: number) => string;
}): Promise<FixedLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const once = poster(options.url, options.headers, agent);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const errorSamples: string[] = [];
  let next = 0;

  const startedAt = performance.now();
  const client = async () => {
    while (next < options.count) {
      const i = next++;
      const t0 = performance.now();
      const { status, text } = await once(options.body(i));
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 200 && errorSamples.length < 5) errorSamples.push(`${status} ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, client));
  const endedAt = performance.now();
  agent.destroy();
  return summary(latencies, statuses, errorSamples, startedAt, endedAt);
}

function summary(latencies: number[], statuses: Record<number, number>, errorSamples: string[], startedAt: number, endedAt: number): FixedLoadResult {
  latencies.sort((a, b) => a - b);
  const seconds = (endedAt - startedAt) / 1000;
  return {
    requests: latencies.length,
    statuses,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    startedAt,
    endedAt,
    errorSamples,
  };
}

/**
 * Open loop: request i is sent at `i / rate` seconds after the start whether or not earlier ones
 * have been answered (up to `maxInFlight` open at once, beyond which the schedule slips and the
 * achieved rate shows it), as independent callers would; latencies are from each request's send.
 */
export async function fixedRate(options: {
  url: string;
  rate: number;
  count: number;
  headers: Record<string, string>;
  body: (i: number) => string;
  maxInFlight?: number;
}): Promise<FixedLoadResult> {
  const maxInFlight = options.maxInFlight ?? 1024;
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const once = poster(options.url, options.headers, agent);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const errorSamples: string[] = [];
  const open = new Set<Promise<void>>();
  const startedAt = performance.now();
  for (let i = 0; i < options.count; i++) {
    const due = startedAt + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    while (open.size >= maxInFlight) await Promise.race(open);
    const t0 = performance.now();
    const request: Promise<void> = once(options.body(i)).then(({ status, text }) => {
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 200 && errorSamples.length < 5) errorSamples.push(`${status} ${text.slice(0, 300)}`);
      open.delete(request);
    });
    open.add(request);
  }
  await Promise.all(open);
  const endedAt = performance.now();
  agent.destroy();
  return summary(latencies, statuses, errorSamples, startedAt, endedAt);
}

/** POSTs a body to `url` over `agent`; never rejects (a transport error is status 0). */
function poster(url: string, headers: Record<string, string>, agent: http.Agent) {
  const target = new URL(url);
  return (body: string) =>
    new Promise<{ status: number; text: string }>((resolve) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        },
      );
      req.on("error", (e) => resolve({ status: 0, text: e.message }));
      req.end(body);
    });
}
