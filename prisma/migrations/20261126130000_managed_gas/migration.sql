-- Managed gas (docs/funding.md): a project's wallets on a chain are topped up from a funding
-- wallet. A top-up is a transaction of kind FUNDING: a plain transfer from the funding wallet, a
-- transaction of the funding wallet's project, naming the project it funds. Adding the two columns
-- rewrites nothing (a constant default); the two indexes are built beforehand without locking
-- writes on a large table with `CREATE [UNIQUE] INDEX CONCURRENTLY IF NOT EXISTS` and the same
-- definitions.

-- CreateEnum
CREATE TYPE "TransactionKind" AS ENUM ('CALL', 'FUNDING');

-- AlterTable
ALTER TABLE "transaction" ADD COLUMN     "kind" "TransactionKind" NOT NULL DEFAULT 'CALL',
ADD COLUMN     "funded_project_id" UUID;

-- CreateTable
CREATE TABLE "project_funding" (
    "project_id" UUID NOT NULL,
    "chain_id" BIGINT NOT NULL,
    "funding_address" TEXT NOT NULL,
    "target_balance_wei" DECIMAL(78,0) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_funding_pkey" PRIMARY KEY ("project_id","chain_id")
);

-- CreateIndex
CREATE INDEX IF NOT EXISTS "transaction_funded_project_id_created_at_idx" ON "transaction"("funded_project_id", "created_at");

-- At most one unfinished top-up per wallet and chain: a second insert for the same shortfall is a
-- no-op (ON CONFLICT DO NOTHING), whichever worker or replica decides it.
CREATE UNIQUE INDEX IF NOT EXISTS "transaction_open_top_up_key" ON "transaction"("chain_id", "contract_address") WHERE kind = 'FUNDING' AND status IN ('PENDING', 'SUBMITTED', 'PAUSED');

-- AddForeignKey
ALTER TABLE "transaction" ADD CONSTRAINT "transaction_funded_project_id_fkey" FOREIGN KEY ("funded_project_id") REFERENCES "project"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_funding" ADD CONSTRAINT "project_funding_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_funding" ADD CONSTRAINT "project_funding_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chain"("chain_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_funding" ADD CONSTRAINT "project_funding_funding_address_fkey" FOREIGN KEY ("funding_address") REFERENCES "wallet"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
