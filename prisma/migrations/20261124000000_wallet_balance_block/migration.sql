-- The block a wallet's balance was read at: a check that read an older block than the stored one
-- is not applied (docs/webhooks.md, "WalletBalanceLow"). Null for states recorded before.
ALTER TABLE "wallet_balance_state" ADD COLUMN     "block_number" BIGINT;
