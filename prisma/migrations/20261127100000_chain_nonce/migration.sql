-- The scheduled balance check also reads the wallet's nonce on the chain: the count of its
-- transactions mined ('latest') and that count with the ones the node holds ('pending'), and when.
-- Null until the first scheduled check after this migration (checks after sends read only the balance).
ALTER TABLE "wallet_balance_state"
    ADD COLUMN "chain_nonce_latest" BIGINT,
    ADD COLUMN "chain_nonce_pending" BIGINT,
    ADD COLUMN "chain_nonce_at" TIMESTAMPTZ(3);
