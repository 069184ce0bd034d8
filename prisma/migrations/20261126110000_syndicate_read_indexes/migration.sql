-- Syndicate's reads list a project's requests and attempts newest first, a page at a time, with
-- the total of all pages (docs/syndicate.md). With these, a page is read in index order and the
-- total is counted from the index, instead of sorting every row of the project for each page.
CREATE INDEX IF NOT EXISTS "transaction_project_id_created_at_id_idx" ON "transaction"("project_id", "created_at", "id");
CREATE INDEX IF NOT EXISTS "transaction_attempt_project_id_created_at_id_idx" ON "transaction_attempt"("project_id", "created_at", "id");
