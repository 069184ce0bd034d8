import { z } from "zod";
import { TRANSACTION_STATUSES } from "@relay/lifecycle";

/** The answers of POST …/cancel and …/speedUp (docs/transactions.md, "Cancelling and speeding up"). */
export const cancelResponse = z
  .object({
    transactionId: z.uuid(),
    status: z.enum(TRANSACTION_STATUSES).meta({ description: "The transaction's status after the request" }),
    cancel: z.enum(["done", "requested"]).meta({
      description:
        "done: the transaction is CANCELLED (it was never sent, or an earlier cancel already mined). " +
        "requested: it may have reached the chain, so a zero-value transfer of its wallet to itself is being sent at its nonce with higher fees; " +
        "the transaction ends CANCELLED if that mines, or with its own outcome (CONFIRMED, REVERTED) if it was mined first, and its history says which.",
    }),
  })
  .meta({ id: "CancelTransactionResponse" });

export const speedUpResponse = z
  .object({
    transactionId: z.uuid(),
    status: z.enum(TRANSACTION_STATUSES),
    speedUp: z.literal("requested").meta({
      description:
        "A replacement at the same nonce, priced for now and at least 12.5 % above the attempt out there, within the chain's fee caps, is signed and sent at once. " +
        "Where the caps leave no room for it, the history says so and the attempt out there stays.",
    }),
    capped: z.boolean().meta({
      description:
        "true: the fee caps (the chain's, and the transaction's own maxFeePerGas) leave no room for a replacement 12.5 % above the attempt out there, " +
        "so none is sent and `message` says which cap. false: a replacement is priced now; where today's market ceiling still caps it, the history says so.",
    }),
    message: z.string().optional().meta({ description: "With capped: true, which cap stops the replacement and what an operator can do" }),
  })
  .meta({ id: "SpeedUpTransactionResponse" });

export type CancelResponse = z.infer<typeof cancelResponse>;
export type SpeedUpResponse = z.infer<typeof speedUpResponse>;
