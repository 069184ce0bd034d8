-- When a nonce filler's current bytes were signed: a filler the node took but does not mine (its
-- fees priced out by a rising base fee) is replaced after the chain's stuck time, counted from
-- here. Existing rows count from their creation.
ALTER TABLE "nonce_filler" ADD COLUMN "signed_at" TIMESTAMPTZ(3);
UPDATE "nonce_filler" SET "signed_at" = "created_at";
ALTER TABLE "nonce_filler" ALTER COLUMN "signed_at" SET NOT NULL, ALTER COLUMN "signed_at" SET DEFAULT CURRENT_TIMESTAMP;
