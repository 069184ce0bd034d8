/**
 * One error type for the whole service. `code` is stable and machine-readable, `retryable` says
 * whether trying the same thing again can help (a processor turns `retryable: false` into
 * BullMQ's UnrecoverableError), `status` is the HTTP status the gateway answers with, and
 * `message` is written for the user who will read it.
 */
export type ErrorCode =
  | "BAD_REQUEST"
  | "INVALID_REQUEST_ID"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "SIGNATURE_ERROR"
  | "TIMEOUT"
  | "UNAVAILABLE"
  | "CONFIG"
  | "CRYPTO"
  | "INTERNAL";

const DEFAULT_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_REQUEST_ID: 422,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SIGNATURE_ERROR: 400,
  TIMEOUT: 500,
  UNAVAILABLE: 503,
  CONFIG: 500,
  CRYPTO: 500,
  INTERNAL: 500,
};

export interface AppErrorOptions {
  retryable?: boolean;
  status?: number;
  cause?: unknown;
  /** Extra fields the gateway adds to the JSON body (e.g. `transactionId` of a 409). */
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status ?? DEFAULT_STATUS[code];
    this.details = options.details;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Every `catch (e)` goes through here: whatever was thrown becomes an Error. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  if (typeof e === "string") return new Error(e);
  try {
    return new Error(`Non-error thrown: ${JSON.stringify(e)}`);
  } catch {
    return new Error(`Non-error thrown: ${String(e)}`);
  }
}
