import type { LookupFunction } from "node:net";
import { refusedRange } from "./address-policy";

/**
 * A destination that is not allowed; the socket is destroyed before it connects. The message
 * names the range but not the address: it ends up in the stats a project reads, and a project must
 * not learn what the relay's own network resolves names to (which internal names exist, and where).
 */
export class RefusedAddressError extends Error {
  readonly code = "ERR_REFUSED_ADDRESS";

  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to an address that is not public (${range})`);
    this.name = "RefusedAddressError";
  }
}

/**
 * A `lookup` for net/tls `connect` that refuses non-public answers. It runs inside the socket's
 * connect, and the addresses it lets through are the ones the socket connects to: nothing
 * resolves the name a second time, so a DNS answer that changes between a check and the connect
 * (rebinding) cannot slip in. When the answer holds several addresses (`all: true`, which Node's
 * happy-eyeballs connect asks for), one refused address refuses them all: a name that mixes public
 * and private answers is not a receiver we want to reach by luck of ordering.
 */
export function guardedLookup(base: LookupFunction, allowPrivateNetworks = false): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const answers = Array.isArray(address) ? address.map((a) => a.address) : [address];
      // Node's connect throws an uncatchable TypeError on an empty answer; the system resolver
      // never gives one, an injected one might.
      if (answers.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
      for (const answer of answers) {
        const range = refusedRange(answer, allowPrivateNetworks);
        // The refused answer is not handed on, so nothing downstream can connect to it by mistake.
        if (range !== null) return callback(new RefusedAddressError(hostname, answer, range), "");
      }
      callback(null, address, family);
    });
  };
}
