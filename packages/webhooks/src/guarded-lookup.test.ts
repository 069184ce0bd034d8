import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { guardedLookup, RefusedAddressError } from "./guarded-lookup";
import { fixedLookup } from "./local-network.test-support";

// The lookup is called the way net.connect calls it; no socket exists in these tests.
function resolve(lookup: LookupFunction, all: boolean): Promise<{ err: Error | null; address: string | LookupAddress[] }> {
  return new Promise((done) => lookup("receiver.example", { all }, (err, address) => done({ err, address })));
}

describe("guardedLookup", () => {
  it.each(["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "::ffff:10.0.0.1", "fd00::1", "100.64.0.1"])(
    "refuses an answer of %s, in both lookup forms",
    async (address) => {
      for (const all of [false, true]) {
        const { err, address: handedOn } = await resolve(guardedLookup(fixedLookup([address])), all);
        expect(err).toBeInstanceOf(RefusedAddressError);
        expect((err as RefusedAddressError).address).toBe(address);
        // The message goes to the project's stats: it names the range, never the address.
        expect(err?.message).toMatch(/^receiver\.example resolves to an address that is not public \(\w+\)$/);
        expect(err?.message).not.toContain(address);
        expect(handedOn).toBe("");
      }
    },
  );

  it("with private networks allowed, lets loopback, private, unique-local and CGNAT answers through, never link-local or metadata", async () => {
    for (const address of ["127.0.0.1", "::1", "10.0.0.1", "::ffff:10.0.0.1", "fd00::1", "100.64.0.1"]) {
      expect({ address, result: await resolve(guardedLookup(fixedLookup([address]), true), false) }).toEqual({ address, result: { err: null, address } });
    }
    for (const address of ["169.254.169.254", "fe80::1", "0.0.0.0", "224.0.0.1"]) {
      const { err } = await resolve(guardedLookup(fixedLookup([address]), true), false);
      expect({ address, refused: err instanceof RefusedAddressError }).toEqual({ address, refused: true });
    }
  });

  it("refuses the whole answer when any address in it is private", async () => {
    const { err } = await resolve(guardedLookup(fixedLookup(["93.184.215.14", "10.0.0.1"])), true);
    expect(err).toBeInstanceOf(RefusedAddressError);
  });

  it("hands public answers on unchanged", async () => {
    expect(await resolve(guardedLookup(fixedLookup(["93.184.215.14"])), false)).toEqual({ err: null, address: "93.184.215.14" });
    const all = await resolve(guardedLookup(fixedLookup(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"])), true);
    expect(all.err).toBeNull();
    expect(all.address).toEqual([
      { address: "93.184.215.14", family: 4 },
      { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
    ]);
  });

  it("passes resolver errors through, and turns an empty answer into one", async () => {
    const { err } = await resolve(guardedLookup(fixedLookup([])), false);
    expect((err as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
    const empty: LookupFunction = (_host, _options, callback) => setImmediate(() => callback(null, []));
    expect(((await resolve(guardedLookup(empty), true)).err as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
  });
});
