-- Registrations are disabled, never deleted at once (their deliveries and stats entries point at
-- them), so a project that registers and deletes in a loop piles up disabled rows. The old index
-- (project_id, event_type) made the outbox dispatch (shared by every project) and the registration
-- limit's count walk them all; with disabled_at second, both seek straight to the active ones.
-- The index on disabled_at lets the retention job find deleted registrations by age.
CREATE INDEX IF NOT EXISTS "event_callback_project_id_disabled_at_event_type_idx" ON "event_callback"("project_id", "disabled_at", "event_type");
DROP INDEX IF EXISTS "event_callback_project_id_event_type_idx";
CREATE INDEX IF NOT EXISTS "event_callback_disabled_at_idx" ON "event_callback"("disabled_at");
