-- The receipt of the attempt a transaction ended with, recorded by the tx-worker when it becomes
-- CONFIRMED or REVERTED (null before, and for transactions that never mined). `block_number` and
-- `hash` already name the block and the attempt. Fee paid: gas used × effective gas price, plus the
-- L1 data fee where the chain's receipt reports one (`receipt_l1_fee_wei`, null where it does not).
ALTER TABLE "transaction"
  ADD COLUMN "receipt_block_hash" TEXT,
  ADD COLUMN "receipt_gas_used" BIGINT,
  ADD COLUMN "receipt_effective_gas_price_wei" DECIMAL(78,0),
  ADD COLUMN "receipt_l1_fee_wei" DECIMAL(78,0),
  ADD COLUMN "receipt_fee_wei" DECIMAL(78,0),
  ADD COLUMN "receipt_log_count" INTEGER;
