import { AppError } from "@relay/core";

/**
 * Runs `f`, which must throw an AppError BAD_REQUEST (anything else fails the test, which is the
 * point: a TypeError or RangeError would be a 500), and returns its message.
 */
export function badRequestMessage(f: () => unknown): string {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof AppError)) {
    throw new Error(`expected an AppError BAD_REQUEST, got ${thrown === undefined ? "no error" : String(thrown)}`);
  }
  expect(thrown.code).toBe("BAD_REQUEST");
  expect(thrown.status).toBe(400);
  return thrown.message;
}
