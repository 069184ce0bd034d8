/**
 * Bounds on the work one request can ask of the encoder. A body under the gateway's size limit
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
});
