-- A signatureId is unique per project, as a transaction's requestId is: the key becomes
-- (project_id, id). Every existing row keeps its id, and ids unique across the table are unique
-- per project. The new key's index is built first under its own name, so on a large table it can
-- be built beforehand without locking writes (`CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS
-- "signature_project_id_id_key" ON "signature"("project_id", "id")`); the primary key then takes
-- it over, and its name.
CREATE UNIQUE INDEX IF NOT EXISTS "signature_project_id_id_key" ON "signature"("project_id", "id");
ALTER TABLE "signature" DROP CONSTRAINT "signature_pkey";
ALTER TABLE "signature" ADD CONSTRAINT "signature_pkey" PRIMARY KEY USING INDEX "signature_project_id_id_key";
