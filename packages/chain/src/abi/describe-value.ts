import { AppError } from "@relay/core";
import { RoundedNumber } from "./rounded-number";

/**
 * Paths and descriptions for error messages. A message names the offending field the way the
 * client wrote it (`args.order.meta.owner`, `args.order.flags[2]`), and says what was received
 * without echoing long input back: keys and strings from a request can be anything.
 */
const PLAIN_KEY = /^([A-Za-z_$][A-Za-z0-9_$]*|[0-9]+)$/;
const SHORT = 40;

export const badRequest = (message: string, cause?: unknown): AppError =>
  new AppError("BAD_REQUEST", message, cause === undefined ? {} : { cause });

/** `args` + `amount` → `args.amount`; a key that is not a plain word is quoted: `args["a b"]`. */
export function childPath(path: string, key: string): string {
  if (PLAIN_KEY.test(key) && key.length <= SHORT) return `${path}.${key}`;
  return `${path}[${JSON.stringify(key.length > SHORT ? `${key.slice(0, SHORT)}…` : key)}]`;
}

/** A name from the request (a parameter's, a component's), cut to 40 characters. */
export const shortName = (name: string): string => (name.length > SHORT ? `${name.slice(0, SHORT)}…` : name);

const LONG = 200;

/** Text made from the request (a function's signature), cut to 200 characters. */
export const shortText = (text: string): string => (text.length > LONG ? `${text.slice(0, LONG)}…` : text);

/** Names for "whose components are a, b, c": each cut, the list cut to about `limit` characters with how many there are. */
export function nameList(names: readonly string[], limit = LONG): string {
  let list = "";
  for (const [i, name] of names.entries()) {
    const next = list ? `${list}, ${shortName(name)}` : shortName(name);
    if (next.length > limit) return `${list}, … (${names.length} in all)`;
    list = next;
    if (i === names.length - 1) return list;
  }
  return list;
}

export const elementPath = (path: string, index: number): string => `${path}[${index}]`;

/** What a value is, for "must be X; got Y". Never throws, whatever it is given. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case "undefined":
      return "nothing";
    case "boolean":
      return String(value);
    case "number":
      // Object.is: String(-0) would print "0" and hide why it was refused.
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint": {
      // An integer JSON number past 2^53, kept exact by the gateway: shown as it was written, or
      // by its length when that is long (a body can hold hundreds of kilobytes of digits).
      const digits = String(value);
      return digits.length <= SHORT ? digits : `an integer of ${digits.replace("-", "").length} digits`;
    }
    case "string":
      return value.length <= SHORT ? JSON.stringify(value) : `a string of ${value.length} characters`;
    case "object":
      if (value instanceof RoundedNumber) return `${value.text.length <= SHORT ? value.text : `${value.text.slice(0, SHORT)}…`} (a number with a fraction)`;
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/** A JSON object as JSON.parse makes it: not an array, a Date, a Map or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
