import { nonceGap } from "../../apps/console/src/nonce-gap";

const read = (latest: number, pending: number) => ({ latest, pending, readAt: "2026-11-27T04:00:00.000Z" });

describe("the relay's next nonce against the chain's (the wallets page's mark)", () => {
  it("is unknown before the chain's nonce was read", () => {
    expect(nonceGap({ nonce: 4 })).toEqual({ kind: "unknown" });
  });
  it("is level when the relay's next nonce is the chain's pending one", () => {
    expect(nonceGap({ nonce: 5, chainNonce: read(5, 5) })).toEqual({ kind: "level" });
    expect(nonceGap({ nonce: 5, chainNonce: read(2, 5) })).toEqual({ kind: "level" });
  });
  it("counts nonces the relay handed out that the node has not seen yet as in flight", () => {
    expect(nonceGap({ nonce: 7, chainNonce: read(2, 5) })).toEqual({ kind: "in-flight", count: 2 });
  });
  it("says the chain is ahead when it mined nonces the relay has not handed out", () => {
    expect(nonceGap({ nonce: 3, chainNonce: read(5, 6) })).toEqual({ kind: "reconcile", count: 2 });
  });
});
