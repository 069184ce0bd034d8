/** What kind of failure an answer was, by its HTTP status (`network`: no answer at all). */
export type RelayErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "rate_limited"
  | "internal"
  | "service_unavailable"
  | "network"
  | "unknown";

const KINDS: Record<number, RelayErrorKind> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "unprocessable",
  429: "rate_limited",
  500: "internal",
  503: "service_unavailable",
};

/**
 * An answer other than 2xx (or none). `message` is the relay's own (it names the field at fault
 * in a 400); `body` is the parsed JSON answer, `status` 0 when no answer came.
 */
export class RelayError extends Error {
  readonly kind: RelayErrorKind;
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    /** The method and path of the request, e.g. `POST /transact/sendTransaction`. */
    readonly request?: string,
  ) {
    super(message);
    this.name = new.target.name;
    this.kind = status === 0 ? "network" : (KINDS[status] ?? "unknown");
  }
}

export class BadRequestError extends RelayError {}
export class UnauthorizedError extends RelayError {}
export class ForbiddenError extends RelayError {}
export class NotFoundError extends RelayError {}
/** 409: an id reused (requestId, signatureId); `transactionId` names the existing transaction when the relay says. */
export class ConflictError extends RelayError {
  get transactionId(): string | undefined {
    const id = (this.body as { transactionId?: unknown } | null)?.transactionId;
    return typeof id === "string" ? id : undefined;
  }
}
/** 413: the request body is over the relay's limit (BODY_LIMIT_BYTES, 256 KiB by default). */
export class PayloadTooLargeError extends RelayError {}
/** 415: a body in a charset other than UTF-8 or an encoding the relay does not read (something between the client and the relay changed it). */
export class UnsupportedMediaTypeError extends RelayError {}
export class UnprocessableError extends RelayError {}
export class RateLimitedError extends RelayError {
  constructor(
    status: number,
    message: string,
    body: unknown,
    request: string | undefined,
    /** What Retry-After asked for, in ms (undefined when absent or unreadable). */
    readonly retryAfterMs: number | undefined,
  ) {
    super(status, message, body, request);
  }
}
export class InternalServerError extends RelayError {}
export class ServiceUnavailableError extends RelayError {}
/** No HTTP answer: the connection failed or the request timed out. `cause` is the underlying error. */
export class RelayNetworkError extends RelayError {
  constructor(message: string, request: string | undefined, options: { cause: unknown }) {
    super(0, message, undefined, request);
    this.cause = options.cause;
  }
}

const CLASSES: Record<number, new (status: number, message: string, body: unknown, request?: string) => RelayError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The typed error for an answer with `status` and parsed `body`. */
export function errorFor(status: number, body: unknown, request: string, retryAfterMs?: number): RelayError {
  const said = (body as { message?: unknown } | null)?.message;
  const message = typeof said === "string" && said ? said : `${request} answered ${status}`;
  if (status === 429) return new RateLimitedError(status, message, body, request, retryAfterMs);
  const Class = CLASSES[status] ?? RelayError;
  return new Class(status, message, body, request);
}
