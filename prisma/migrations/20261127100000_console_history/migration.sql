-- The scheduled balance check also reads the wallet's nonce on the chain: the count of its
-- transactions mined ('latest') and that count with the ones the node holds ('pending'), and when.
-- Null until the first scheduled check after this migration (checks after sends read only the balance).
ALTER TABLE "wallet_balance_state"
    ADD COLUMN "chain_nonce_latest" BIGINT,
    ADD COLUMN "chain_nonce_pending" BIGINT,
    ADD COLUMN "chain_nonce_at" TIMESTAMPTZ(3);

-- Queue depth history (the console's activity page): once a minute, how much of each project's
-- work waits (its unfinished transactions, its deliveries still to make). A minute sampled is
-- recorded in queue_depth_minute, so a project without a row there waited for nothing (0) and a
-- minute not sampled (no worker running) shows as a gap. Kept for a day, pruned by the sampler.
CREATE TABLE "queue_depth_minute" (
    "minute" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "queue_depth_minute_pkey" PRIMARY KEY ("minute")
);

CREATE TABLE "queue_depth_sample" (
    "project_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "transactions" INTEGER NOT NULL,
    "deliveries" INTEGER NOT NULL,
    CONSTRAINT "queue_depth_sample_pkey" PRIMARY KEY ("project_id", "minute")
);

CREATE INDEX "queue_depth_sample_minute_idx" ON "queue_depth_sample"("minute");
