import { Resolver } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";

export interface ResolverLookupOptions {
  /** DNS servers to ask (`1.1.1.1`, `[2606:4700::1111]:53`); the system's (resolv.conf) when absent. */
  servers?: readonly string[] | undefined;
  /** How long one query waits for an answer before it is sent again. */
  queryTimeoutMs: number;
  /** How many times a query is sent to each server before it fails. */
  tries?: number;
}

/** RFC 6761 §6.3: `localhost` and names under it are the machine itself, whatever DNS says. */
const isLocalhost = (name: string) => /^(?:.+\.)?localhost\.?$/i.test(name);
const LOOPBACK: LookupAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/** The resolver's failure as the HTTP client classifies it: a code of a name that gave no address. */
function resolveError(hostname: string, cause: unknown): NodeJS.ErrnoException {
  const code = String((cause as NodeJS.ErrnoException | undefined)?.code ?? "ENOTFOUND");
  const known = ["ENOTFOUND", "ENODATA", "ESERVFAIL", "ETIMEOUT"].includes(code);
  return Object.assign(new Error(`${hostname} could not be resolved (${code})`), { code: known ? code : "EAI_AGAIN", hostname });
}

/**
 * A `lookup` for net/tls `connect` that asks DNS servers itself (c-ares, asynchronous), where
 * Node's default `dns.lookup` calls getaddrinfo on libuv's thread pool: four threads per process,
 * shared with the file system, crypto and the pool's own connections, none of which a hanging
 * name server's query gives back until the system resolver gives up (and a connect time-out does
 * not cancel it). A project's callback URLs on names whose servers never answer held them all, and
 * every other delivery of the process (Postgres and Redis connections too, where they are reached
 * by name) waited behind them. Names are looked up in DNS only: `/etc/hosts` is not read, except
 * that `localhost` is loopback (RFC 6761).
 */
export function resolverLookup(options: ResolverLookupOptions): LookupFunction {
  const resolver = new Resolver({ timeout: options.queryTimeoutMs, tries: options.tries ?? 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);

  const resolveAll = async (hostname: string, family: number): Promise<LookupAddress[]> => {
    if (isIP(hostname)) return [{ address: hostname, family: isIP(hostname) }];
    const wanted = (f: number) => family === 0 || family === f;
    if (isLocalhost(hostname)) return LOOPBACK.filter((a) => wanted(a.family));
    const [v4, v6] = await Promise.allSettled([
      wanted(4) ? resolver.resolve4(hostname) : Promise.resolve([]),
      wanted(6) ? resolver.resolve6(hostname) : Promise.resolve([]),
    ]);
    const answers = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (answers.length > 0) return answers;
    // No address in either family: the A query's reason, unless it only had no data.
    const failed = [v4, v6].filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as NodeJS.ErrnoException);
    throw resolveError(hostname, failed.find((e) => e.code !== "ENODATA") ?? failed[0]);
  };

  return (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 4 || lookupOptions.family === "IPv4" ? 4 : lookupOptions.family === 6 || lookupOptions.family === "IPv6" ? 6 : 0;
    resolveAll(hostname, family).then(
      (answers) => {
        if (lookupOptions.all) callback(null, answers);
        else callback(null, answers[0]!.address, answers[0]!.family);
      },
      (e: unknown) => callback(e as NodeJS.ErrnoException, ""),
    );
  };
}
