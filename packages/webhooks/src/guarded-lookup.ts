import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { nonPublicRange } from "./address-policy";

/** A destination that is not public unicast; the socket is destroyed before it connects. */
export class RefusedAddressError extends Error {
  readonly code = "ERR_REFUSED_ADDRESS";

  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}), which is not a public address`);
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
export function guardedLookup(base: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const answers = Array.isArray(address) ? address.map((a) => a.address) : [address];
      // Node's connect throws an uncatchable TypeError on an empty answer; the system resolver
      // never gives one, an injected one might.
      if (answers.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
      for (const answer of answers) {
        const range = nonPublicRange(answer);
        // The refused answer is not handed on, so nothing downstream can connect to it by mistake.
        if (range !== null) return callback(new RefusedAddressError(hostname, answer, range), "");
      }
      callback(null, address, family);
    });
  };
}
