import { z } from "zod";

/** The `receipt` of a transaction's read and list items. */
export const transactionReceiptResponse = z
  .object({
    blockNumber: z.string().nullable().meta({ description: "Block the final attempt was mined in" }),
    blockHash: z.string(),
    gasUsed: z.string().meta({ description: "Gas the final attempt used, decimal" }),
    effectiveGasPrice: z.string().nullable().meta({ description: "Wei per gas it paid, decimal (null from a node whose receipts have none)" }),
    l1Fee: z.string().nullable().meta({ description: "L1 data fee in wei, where the chain's receipt reports one (OP Stack chains); null elsewhere" }),
    fee: z.string().nullable().meta({ description: "Wei paid: gasUsed × effectiveGasPrice, plus l1Fee when there is one" }),
    logCount: z.number().int().meta({ description: "Logs (events) the transaction emitted" }),
  })
  .nullable()
  .meta({
    id: "TransactionReceipt",
    description: "The receipt of the attempt the transaction ended with, recorded when it became CONFIRMED or REVERTED; null before, and for transactions that never mined",
  });
