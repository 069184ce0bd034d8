-- Wallets can be deactivated, reactivated and retired over HTTP (Syndicate's toggleIsActive and
-- retire) and carry Syndicate's wallet type. An inactive or retired wallet is never chosen for a
-- new send; a retired one stays, with its sealed key, so its funds can still be recovered.
-- Existing wallets are active broadcast wallets, updated when they were created.
CREATE TYPE "WalletType" AS ENUM ('BROADCAST', 'SIGNING', 'CLUSTER_MANAGER');

ALTER TABLE "wallet"
    ADD COLUMN "is_active" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "retired_at" TIMESTAMPTZ(3),
    ADD COLUMN "wallet_type" "WalletType" NOT NULL DEFAULT 'BROADCAST',
    ADD COLUMN "updated_at" TIMESTAMPTZ(3);
UPDATE "wallet" SET "updated_at" = "created_at";
ALTER TABLE "wallet" ALTER COLUMN "updated_at" SET NOT NULL, ALTER COLUMN "updated_at" SET DEFAULT CURRENT_TIMESTAMP;

-- A retired wallet is inactive for good.
ALTER TABLE "wallet" ADD CONSTRAINT "wallet_retired_inactive_check" CHECK ("retired_at" IS NULL OR NOT "is_active");
