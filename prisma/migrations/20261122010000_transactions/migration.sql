-- CreateEnum
CREATE TYPE "TransactionStatus" AS ENUM ('PENDING', 'SUBMITTED', 'CONFIRMED', 'REVERTED', 'INVALID', 'PAUSED', 'FAILED');

-- CreateEnum
CREATE TYPE "EventType" AS ENUM ('TransactionStatusChange', 'WalletBalanceLow');

-- AlterTable
ALTER TABLE "chain" ADD COLUMN     "block_time_ms" INTEGER NOT NULL DEFAULT 2000,
ADD COLUMN     "max_fee_per_gas_cap_wei" DECIMAL(78,0),
ADD COLUMN     "max_priority_fee_per_gas_cap_wei" DECIMAL(78,0),
ADD COLUMN     "stuck_after_seconds" INTEGER NOT NULL DEFAULT 60;

-- CreateTable
CREATE TABLE "transaction" (
    "project_id" UUID NOT NULL,
    "id" UUID NOT NULL,
    "chain_id" BIGINT NOT NULL,
    "contract_address" TEXT NOT NULL,
    "function_signature" TEXT NOT NULL,
    "args" JSONB NOT NULL,
    "calldata" BYTEA NOT NULL,
    "value_wei" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "status" "TransactionStatus" NOT NULL DEFAULT 'PENDING',
    "from_address" TEXT,
    "nonce" BIGINT,
    "gas_limit" BIGINT,
    "hash" TEXT,
    "block_number" BIGINT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateTable
CREATE TABLE "transaction_status_change" (
    "id" BIGSERIAL NOT NULL,
    "project_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "status" "TransactionStatus" NOT NULL,
    "previous_status" "TransactionStatus",
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_status_change_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transaction_attempt" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "chain_id" BIGINT NOT NULL,
    "from_address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "raw_transaction" BYTEA NOT NULL,
    "type" INTEGER NOT NULL,
    "gas_limit" BIGINT NOT NULL,
    "max_fee_per_gas_wei" DECIMAL(78,0),
    "max_priority_fee_per_gas_wei" DECIMAL(78,0),
    "gas_price_wei" DECIMAL(78,0),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "broadcast_at" TIMESTAMPTZ(3),

    CONSTRAINT "transaction_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_nonce" (
    "chain_id" BIGINT NOT NULL,
    "address" TEXT NOT NULL,
    "next" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_nonce_pkey" PRIMARY KEY ("chain_id","address")
);

-- CreateTable
CREATE TABLE "nonce_filler" (
    "chain_id" BIGINT NOT NULL,
    "address" TEXT NOT NULL,
    "nonce" BIGINT NOT NULL,
    "hash" TEXT,
    "raw_transaction" BYTEA,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "nonce_filler_pkey" PRIMARY KEY ("chain_id","address","nonce")
);

-- CreateTable
CREATE TABLE "event" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "event_type" "EventType" NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),

    CONSTRAINT "event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "transaction_status_updated_at_idx" ON "transaction"("status", "updated_at");

-- CreateIndex
CREATE INDEX "transaction_chain_id_from_address_status_idx" ON "transaction"("chain_id", "from_address", "status");

-- CreateIndex
CREATE UNIQUE INDEX "transaction_chain_id_from_address_nonce_key" ON "transaction"("chain_id", "from_address", "nonce");

-- CreateIndex
CREATE INDEX "transaction_status_change_project_id_transaction_id_id_idx" ON "transaction_status_change"("project_id", "transaction_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "transaction_attempt_hash_key" ON "transaction_attempt"("hash");

-- CreateIndex
CREATE INDEX "transaction_attempt_project_id_transaction_id_idx" ON "transaction_attempt"("project_id", "transaction_id");

-- CreateIndex
CREATE INDEX "event_dispatched_at_created_at_idx" ON "event"("dispatched_at", "created_at");

-- AddForeignKey
ALTER TABLE "transaction" ADD CONSTRAINT "transaction_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction" ADD CONSTRAINT "transaction_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chain"("chain_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_status_change" ADD CONSTRAINT "transaction_status_change_project_id_transaction_id_fkey" FOREIGN KEY ("project_id", "transaction_id") REFERENCES "transaction"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_attempt" ADD CONSTRAINT "transaction_attempt_project_id_transaction_id_fkey" FOREIGN KEY ("project_id", "transaction_id") REFERENCES "transaction"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_nonce" ADD CONSTRAINT "wallet_nonce_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chain"("chain_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "nonce_filler" ADD CONSTRAINT "nonce_filler_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chain"("chain_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event" ADD CONSTRAINT "event_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
