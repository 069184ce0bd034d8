-- Per-project policies (docs/policies.md): one document per project, validated by the gateway's
-- and the CLI's one schema before it is written. No row: no policy, every request as before.
CREATE TABLE "project_policy" (
  "project_id" UUID NOT NULL,
  "policy" JSONB NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "project_policy_pkey" PRIMARY KEY ("project_id")
);
ALTER TABLE "project_policy" ADD CONSTRAINT "project_policy_project_id_fkey"
  FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- What a key may do and where from. Existing keys keep every scope and any address (an empty
-- or null allowed_cidrs: no allowlist). Nullable like every list column Prisma maps.
ALTER TABLE "api_key"
  ADD COLUMN "scopes" TEXT[] DEFAULT ARRAY['send', 'sign', 'read', 'webhooks', 'wallets']::TEXT[],
  ADD COLUMN "allowed_cidrs" TEXT[];

-- The most an unfinished transaction can pay in fees (gas limit × fee ceiling), counted against
-- its wallet's gas budget until its receipt's fee replaces it. Null: not known (no gas limit or
-- no ceiling given), only possible for projects without a gas budget.
ALTER TABLE "transaction" ADD COLUMN "gas_reserved_wei" DECIMAL(78,0);

-- A wallet's spend of the last 24 hours includes transactions bound to it by the request before
-- the worker binds a nonce (requested_from_address); from_address is served by the existing index.
CREATE INDEX "transaction_chain_id_requested_from_address_created_at_idx" ON "transaction"("chain_id", "requested_from_address", "created_at");
-- The same for transactions the worker has bound to the wallet: their last 24 hours without a
-- walk through the wallet's whole history.
CREATE INDEX "transaction_chain_id_from_address_created_at_idx" ON "transaction"("chain_id", "from_address", "created_at");
