export { deliveryBody } from "./delivery-body";
export { currentPayload } from "./stored-payload";
export { generateWebhookSecret, signDelivery } from "./signing";
export { SYNDICATE_SIGNATURE_HEADER, syndicateSignature, syndicateSignedText } from "./syndicate-signature";
export type { SyndicateDeliveryToSign } from "./syndicate-signature";
export type { DeliveryToSign, WebhookHeaders } from "./signing";
export {
  transactionStatusChangeDataSchema,
  transactionStatusChangeEventSchema,
  walletBalanceLowDataSchema,
  walletBalanceLowEventSchema,
  webhookEventSchema,
} from "./payloads";
export type {
  TransactionStatusChangeData,
  TransactionStatusChangeEvent,
  WalletBalanceLowData,
  WalletBalanceLowEvent,
  WebhookEvent,
  WebhookTransactionStatus,
} from "./payloads";
export { createSafeHttpClient } from "./safe-http";
export type { SafeHttpClient, SafeHttpOptions, SafeHttpResponse, SafeHttpResult } from "./safe-http";
export type { SafeHttpFailure, SafeHttpFailureKind } from "./safe-http-failure";
export { checkCallbackUrl, MAX_CALLBACK_URL_LENGTH } from "./callback-url";
export type { CallbackUrlRules } from "./callback-url";
export { isPublicUnicast, nonPublicRange } from "./address-policy";
export { guardedLookup, RefusedAddressError } from "./guarded-lookup";
export { openPreviousWebhookSecret, openWebhookSecret, resealWebhookSecrets, sealPreviousWebhookSecret, sealWebhookSecret } from "./secret-sealing";
export type { RegistrationWithPreviousSecret } from "./secret-sealing";
