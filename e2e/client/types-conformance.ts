/**
 * Compile-time only: @relay/client's hand-written types (packages/client/src/types/) against
 * the zod schemas the gateway validates with and answers by. The client cannot import them (it is
 * published without the gateway), so this file holds the two together: a field added, removed,
 * renamed or retyped on either side fails `tsc -p tsconfig.json` here.
 */
import type * as C from "@relay/client";
import type * as tx from "../../apps/gateway/src/routes/transactions.schema";
import type * as list from "../../apps/gateway/src/routes/transaction-list.schema";
import type * as control from "../../apps/gateway/src/routes/transaction-control.schema";
import type * as sign from "../../apps/gateway/src/routes/personal-sign.schema";
import type * as callbacks from "../../apps/gateway/src/routes/event-callbacks.schema";
import type * as reads from "../../apps/gateway/src/syndicate/transaction-reads.schema";
import type * as wallets from "../../apps/gateway/src/syndicate/wallets.schema";
import type * as funding from "../../apps/gateway/src/syndicate/funding.schema";
import type * as typed from "../../apps/gateway/src/syndicate/signing.schema";
import type * as call from "../../apps/gateway/src/syndicate/call.schema";
import type * as policy from "../../apps/gateway/src/routes/policy.schema";
import type * as txEvents from "../../apps/gateway/src/routes/transaction-events.schema";
import type * as activity from "../../apps/gateway/src/routes/activity.schema";
import type * as projects from "../../apps/gateway/src/routes/projects.schema";
import type * as events from "@relay/webhooks";

/** zod 4's z.output / z.input, without importing zod here. */
type Out<S extends { _zod: { output: unknown } }> = S["_zod"]["output"];
type In<S extends { _zod: { input: unknown } }> = S["_zod"]["input"];

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;
/** The client sends what the gateway takes: every field of the client's request is one the schema reads, of a type it accepts. */
type Sends<Client, Schema> = [Client] extends [Schema] ? ([keyof Client] extends [keyof Schema] ? ([keyof Schema] extends [keyof Client] ? true : false) : false) : false;
type Check<T extends true> = T;
/** The named fields of a type, without the index signature the client's event data keep for fields added later. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

export type Conformance = [
  Check<Sends<C.SendTransactionRequest, In<typeof tx.sendTransactionRequest>>>,
  Check<Same<C.SendTransactionResponse, Out<typeof tx.sendTransactionResponse>>>,
  Check<Same<C.TransactionRecord, Out<typeof tx.transactionRecordResponse>>>,
  Check<Same<C.TransactionList, Out<typeof list.transactionListResponse>>>,
  Check<Same<C.CancelResponse, Out<typeof control.cancelResponse>>>,
  Check<Same<C.SpeedUpResponse, Out<typeof control.speedUpResponse>>>,
  Check<Sends<C.PersonalSignRequest, In<typeof sign.personalSignRequest>>>,
  Check<Same<C.PersonalSignResponse, Out<typeof sign.personalSignResponse>>>,
  Check<Same<C.SignatureRecord, Out<typeof sign.signatureRecordResponse>>>,
  Check<Sends<C.EventCallbackRequest, In<typeof callbacks.eventCallbackRequest>>>,
  Check<Same<C.EventCallback, Out<typeof callbacks.eventCallbackResponse>>>,
  Check<Same<C.EventCallbackListItem, Out<typeof callbacks.eventCallbackListItem>>>,
  Check<Same<C.EventCallbackRotated, Out<typeof callbacks.eventCallbackRotated>>>,
  Check<Same<C.EventCallbackDeleted, Out<typeof callbacks.eventCallbackDeleted>>>,
  Check<Same<C.SyndicateTransactionRequest, Out<typeof reads.syndicateTransactionResponse>>>,
  Check<Same<C.SyndicateTransactionRequests, Out<typeof reads.transactionRequestsResponse>>>,
  Check<Same<C.SyndicateTransactionAttempts, Out<typeof reads.transactionAttemptsResponse>>>,
  Check<Same<C.TransactionStats, Out<typeof reads.transactionStatsResponse>>>,
  Check<Sends<C.CreateWalletRequest, In<typeof wallets.createWalletRequest>>>,
  Check<Same<C.CreateWalletResponse, Out<typeof wallets.createWalletResponse>>>,
  Check<Same<C.RetireWalletResponse, Out<typeof wallets.retireWalletResponse>>>,
  Check<Same<C.Wallet, Out<typeof wallets.walletResponse>>>,
  Check<Same<C.WalletWithData, Out<typeof wallets.walletWithDataResponse>>>,
  Check<Same<C.FundingTransactions, Out<typeof funding.fundingTransactionsResponse>>>,
  Check<Same<C.ProjectPolicy, Out<typeof policy.projectPolicyResponse>>>,
  Check<Same<C.TransactionEvents, Out<typeof txEvents.transactionEventsResponse>>>,
  Check<Same<C.ProjectActivity, Out<typeof activity.activityResponse>>>,
  Check<Same<C.Redelivery, Out<typeof callbacks.redeliveryResponse>>>,
  Check<Same<C.Projects, Out<typeof projects.projectsResponse>>>,
  Check<Sends<C.SignTypedDataRequest, In<typeof typed.signTypedDataRequest>>>,
  Check<Same<C.SignTypedDataResponse, Out<typeof typed.signTypedDataResponse>>>,
  Check<Same<C.TypedDataSignature, Out<typeof typed.typedSignature>>>,
  Check<Same<C.MessageSignature, Out<typeof typed.messageSignature>>>,
  Check<Sends<C.ReadContractRequest, In<typeof call.readContractRequest>>>,
  // The events POSTed to callback URLs, as packages/webhooks' schemas describe them.
  Check<Same<Omit<C.TransactionStatusChangeEvent, "data">, Omit<events.TransactionStatusChangeEvent, "data">>>,
  Check<Same<Known<C.TransactionStatusChangeData>, events.TransactionStatusChangeData>>,
  Check<Same<Omit<C.WalletBalanceLowEvent, "data">, Omit<events.WalletBalanceLowEvent, "data">>>,
  Check<Same<Known<C.WalletBalanceLowData>, events.WalletBalanceLowData>>,
];
