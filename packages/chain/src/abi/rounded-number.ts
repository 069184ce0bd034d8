/**
 * A JSON number literal with a fraction that a double rounds to a whole number
 * (`4503599627370496.5`, `0.99999999999999999`, `1e-400`). The gateway reads bodies that may hold
 * one from their text (apps/gateway/src/middleware/exact-numbers.ts) and hands it over as this,
 * not as the integer JSON.parse makes of it: an integer argument refuses it, where the rounded
 * number would have encoded an amount the client did not write.
 */
export class RoundedNumber {
  constructor(readonly text: string) {}
}
