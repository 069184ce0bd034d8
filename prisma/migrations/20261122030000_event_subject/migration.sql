-- AlterTable
ALTER TABLE "event" ADD COLUMN     "subject" TEXT;

-- CreateIndex
CREATE INDEX "event_subject_created_at_idx" ON "event"("subject", "created_at");

-- Backfill (hand-written): events written before this column existed carry their subject in the
-- payload; only undispatched ones are still read by the dispatcher.
UPDATE "event" SET "subject" = "payload" -> 'data' ->> 'transactionId' WHERE "dispatched_at" IS NULL;
