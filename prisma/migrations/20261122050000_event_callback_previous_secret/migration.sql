-- AlterTable
ALTER TABLE "event_callback" ADD COLUMN     "previous_encrypted_secret" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3);
