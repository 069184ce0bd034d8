-- A wallet names where its key is kept: LOCAL (sealed in encrypted_key, as every wallet before
-- this), HSM (a PKCS#11 token: key_ref is the key's CKA_ID) or KMS (AWS KMS: key_ref is the key's
-- ARN). A wallet kept outside has no sealed key; the checks hold each backend to what it needs.
CREATE TYPE "CustodyBackend" AS ENUM ('LOCAL', 'HSM', 'KMS');

ALTER TABLE "wallet"
    ADD COLUMN "backend" "CustodyBackend" NOT NULL DEFAULT 'LOCAL',
    ADD COLUMN "key_ref" TEXT,
    ALTER COLUMN "encrypted_key" DROP NOT NULL;

ALTER TABLE "wallet" ADD CONSTRAINT "wallet_backend_key_check" CHECK (
    ("backend" = 'LOCAL') = ("encrypted_key" IS NOT NULL)
    AND ("backend" = 'LOCAL' OR "key_ref" IS NOT NULL)
);
