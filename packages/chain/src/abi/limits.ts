/**
 * Bounds on the work one request can ask of the encoder, and on what it may produce. A body under the gateway's size limit
 * can still describe a million-element array or a type nested a thousand levels deep; these keep
 * every call small and predictable, and turn anything beyond them into a 400 instead of a stack
 * overflow or a stalled event loop.
 */
export const ABI_LIMITS = Object.freeze({
  /** Characters in `functionSignature`. */
  signatureLength: 4096,
  /** Elements in one array value, and the largest length a fixed-size array type may declare. */
  arrayLength: 10_000,
  /** Arrays and tuples nested within one parameter. */
  depth: 32,
  /**
   * Values of every kind in one call's args, arrays and tuples included. Without it, nested
   * arrays that each respect `arrayLength` (10,000 × 10,000) would still be 10^8 values. ethers
   * encodes about 40,000 values a second, so this bounds a request to about half a second; a
   * call this large would not be broadcast anyway (geth's pool refuses transactions over
   * 128 KiB, and every value takes at least 32 bytes).
   */
  values: 20_000,
  /**
   * Bytes of encoded calldata (selector included). Nodes refuse into their pools a signed
   * transaction larger than 128 KiB (geth's txMaxSize, 4 × 32 KiB = 131,072 bytes of its
   * encoding), so calldata past this could be stored and signed but never sent. Everything else in
   * an EIP-1559 transaction takes at most 248 bytes: type 1, list header 4, chain id 33 (any
   * uint256), nonce 9, the two fee caps 33 + 33, gas limit 9, to 21, value 33, calldata header 4,
   * empty access list 1, y-parity 1, r 33, s 33 (a legacy transaction is smaller). Rounded up to
   * 256: 131,072 - 256 = 130,816.
   */
  calldataBytes: 130_816,
});
