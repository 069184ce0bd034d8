-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('PENDING', 'DELIVERED', 'FAILED', 'ABANDONED');

-- CreateTable
CREATE TABLE "event_callback" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" UUID NOT NULL,
    "callback_url" TEXT NOT NULL,
    "event_type" "EventType" NOT NULL,
    "encrypted_secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,

    CONSTRAINT "event_callback_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "event_id" UUID NOT NULL,
    "event_callback_id" UUID NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "subject" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_callback_stat" (
    "id" BIGSERIAL NOT NULL,
    "event_callback_id" UUID NOT NULL,
    "delivery_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,
    "response_status" INTEGER NOT NULL,

    CONSTRAINT "event_callback_stat_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "wallet_balance_state" (
    "chain_id" BIGINT NOT NULL,
    "address" TEXT NOT NULL,
    "low" BOOLEAN NOT NULL,
    "balance_wei" DECIMAL(78,0) NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "wallet_balance_state_pkey" PRIMARY KEY ("chain_id","address")
);

-- CreateIndex
CREATE INDEX "event_callback_project_id_event_type_idx" ON "event_callback"("project_id", "event_type");

-- CreateIndex
CREATE INDEX "webhook_delivery_event_callback_id_subject_created_at_idx" ON "webhook_delivery"("event_callback_id", "subject", "created_at");

-- CreateIndex
CREATE INDEX "webhook_delivery_status_next_attempt_at_idx" ON "webhook_delivery"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_delivery_event_id_event_callback_id_key" ON "webhook_delivery"("event_id", "event_callback_id");

-- CreateIndex
CREATE INDEX "event_callback_stat_event_callback_id_id_idx" ON "event_callback_stat"("event_callback_id", "id");

-- AddForeignKey
ALTER TABLE "event_callback" ADD CONSTRAINT "event_callback_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "event"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_event_callback_id_fkey" FOREIGN KEY ("event_callback_id") REFERENCES "event_callback"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_callback_stat" ADD CONSTRAINT "event_callback_stat_event_callback_id_fkey" FOREIGN KEY ("event_callback_id") REFERENCES "event_callback"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_callback_stat" ADD CONSTRAINT "event_callback_stat_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_delivery"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "wallet_balance_state" ADD CONSTRAINT "wallet_balance_state_chain_id_fkey" FOREIGN KEY ("chain_id") REFERENCES "chain"("chain_id") ON DELETE RESTRICT ON UPDATE CASCADE;
