export { RelayClient, type RelayClientOptions, type CallOptions } from "./client";
export {
  RelayError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  UnprocessableError,
  RateLimitedError,
  InternalServerError,
  ServiceUnavailableError,
  RelayNetworkError,
  type RelayErrorKind,
} from "./errors";
export { parseRetryAfter, type RetryOptions } from "./retry";
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from "./webhooks";
export * from "./types";
