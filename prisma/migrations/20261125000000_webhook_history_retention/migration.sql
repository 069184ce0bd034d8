-- Webhook history retention (docs/webhooks.md, "Retention"): deleting a delivery looks up the
-- stats entries that reference it (its foreign key, and the pruning statement itself); without
-- this index each look-up read the whole stats table.
-- IF NOT EXISTS: on a large stats table, build it beforehand without blocking the workers'
-- inserts (docs/operations.md, "Upgrading"): CREATE INDEX CONCURRENTLY ... (the same statement).
CREATE INDEX IF NOT EXISTS "event_callback_stat_delivery_id_idx" ON "event_callback_stat"("delivery_id");
