-- A transaction whose expiresAt passed before it was signed: never broadcast, final.
ALTER TYPE "TransactionStatus" ADD VALUE 'EXPIRED';

-- sendTransaction's optional fields (docs/transactions.md, "Optional request fields"), as the
-- request gave them; null when it did not. `from_address` and `gas_limit` stay what the worker
-- bound and signed with: the wallet named here is the only one the worker may choose, the gas
-- limit here is signed as it is instead of the estimate, and no attempt pays more per gas than
-- `max_fee_per_gas_wei`.
ALTER TABLE "transaction"
  ADD COLUMN "requested_from_address" TEXT,
  ADD COLUMN "requested_gas_limit" BIGINT,
  ADD COLUMN "max_fee_per_gas_wei" DECIMAL(78,0),
  ADD COLUMN "expires_at" TIMESTAMPTZ(3);
