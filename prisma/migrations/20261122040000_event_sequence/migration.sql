-- AlterTable
-- Hand-written in place of Prisma's `ADD COLUMN "seq" BIGSERIAL NOT NULL`, which numbers the
-- existing rows in whatever order the table rewrite reads them. Events not yet delivered must keep
-- the order they had, (created_at, id), so the rows are numbered in that order first; the column
-- then ends up as BIGSERIAL makes it (bigint, NOT NULL, nextval default, sequence owned by it).
CREATE SEQUENCE "event_seq_seq";
ALTER TABLE "event" ADD COLUMN     "seq" BIGINT;
UPDATE "event" e SET "seq" = o.n
  FROM (SELECT "id", row_number() OVER (ORDER BY "created_at", "id") AS n FROM "event") o
 WHERE e."id" = o."id";
ALTER TABLE "event" ALTER COLUMN "seq" SET DEFAULT nextval('"event_seq_seq"'),
ALTER COLUMN "seq" SET NOT NULL;
ALTER SEQUENCE "event_seq_seq" OWNED BY "event"."seq";
SELECT setval('"event_seq_seq"', max("seq")) FROM "event" HAVING count(*) > 0;

-- DropIndex
DROP INDEX "event_dispatched_at_created_at_idx";

-- DropIndex
DROP INDEX "event_subject_created_at_idx";

-- CreateIndex
CREATE INDEX "event_dispatched_at_seq_idx" ON "event"("dispatched_at", "seq");

-- CreateIndex
CREATE INDEX "event_subject_seq_idx" ON "event"("subject", "seq");
