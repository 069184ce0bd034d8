-- Cancel and speed up (docs/transactions.md, "Cancelling and speeding up"). CANCELLED is a final
-- status. The gateway records a request on the transaction; the tx-worker acts on it. An attempt
-- marked `cancel` is a zero-value self-transfer at the transaction's nonce, not its call.
ALTER TYPE "TransactionStatus" ADD VALUE 'CANCELLED';

ALTER TABLE "transaction" ADD COLUMN "cancel_requested_at" TIMESTAMPTZ(3), ADD COLUMN "speed_up_requested_at" TIMESTAMPTZ(3);

ALTER TABLE "transaction_attempt" ADD COLUMN "cancel" BOOLEAN NOT NULL DEFAULT false;
