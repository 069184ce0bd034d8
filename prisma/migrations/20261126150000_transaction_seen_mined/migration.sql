-- A SUBMITTED transaction whose attempt is in a block, short of the chain's confirmations: the
-- attempt's hash and block as the tx-worker last saw them (cleared when a reorganisation drops
-- it). `hash` and `block_number` stay those of the final outcome; Syndicate's reads answer
-- PROCESSED from these (docs/syndicate.md).
ALTER TABLE "transaction" ADD COLUMN "mined_hash" TEXT, ADD COLUMN "mined_block_number" BIGINT;
