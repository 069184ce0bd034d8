import { type Command, InvalidArgumentError } from "commander";

/** Every leaf command accepts `--json`. */
export const withJson = (command: Command): Command => command.option("--json", "print machine-readable JSON");

export interface JsonOption {
  json?: boolean;
}

/** A decimal integer ≥ `min` (and ≤ `max` when given), as a bigint (wei does not fit a double). */
export const parseBigIntArg =
  (what: string, min: bigint, max?: bigint) =>
  (value: string): bigint => {
    if (!/^\d+$/.test(value) || BigInt(value) < min || (max !== undefined && BigInt(value) > max)) {
      throw new InvalidArgumentError(max === undefined ? `${what} must be a whole number ≥ ${min}.` : `${what} must be a whole number from ${min} to ${max}.`);
    }
    return BigInt(value);
  };

export const parseIntArg =
  (what: string, min: number, max: number) =>
  (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${what} must be a whole number from ${min} to ${max}.`);
    }
    return n;
  };

/** Collects a repeatable option into a list. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];
