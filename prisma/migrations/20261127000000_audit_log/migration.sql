-- The audit log (docs/audit.md): who signed what, and every change of wallets, keys and policies,
-- in an append-only table. The apps' role may read and add entries, never change or remove one.

-- Who asked: the API key that stored a signature request or a transaction (null: stored by the
-- relay itself, a top-up, or before this column existed). No foreign key: the check would cost a
-- lookup on every request, and a key is never deleted (revoked keys keep their rows).
ALTER TABLE "signature" ADD COLUMN "api_key_id" UUID;
ALTER TABLE "transaction" ADD COLUMN "api_key_id" UUID;

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "action" TEXT NOT NULL,
    "project_id" UUID,
    "wallet_address" TEXT,
    "subject" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_log_actor_type_check" CHECK ("actor_type" IN ('api_key', 'operator', 'relay'))
);

CREATE INDEX "audit_log_project_id_id_idx" ON "audit_log"("project_id", "id");
CREATE INDEX "audit_log_actor_id_id_idx" ON "audit_log"("actor_id", "id");
CREATE INDEX "audit_log_wallet_address_id_idx" ON "audit_log"("wallet_address", "id");
CREATE INDEX "audit_log_action_id_idx" ON "audit_log"("action", "id");
CREATE INDEX "audit_log_at_idx" ON "audit_log"("at");
-- One wallet.created entry per wallet: a createWallet job that runs again records it once.
CREATE UNIQUE INDEX "audit_log_wallet_created_key" ON "audit_log"("subject") WHERE action = 'wallet.created';

-- Append-only for every role, the owner and superusers included: the grants below keep the apps'
-- role from changing entries, these triggers keep anyone else from doing it by mistake. Removing
-- them takes a deliberate DROP TRIGGER by the owner, which the database's own logs show.
CREATE FUNCTION "audit_log_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER "audit_log_no_update_or_delete" BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_refuse_change"();
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_refuse_change"();

-- Signatures: one entry per record that turns SIGNED, written by the statement that signs it (one
-- INSERT per statement, however many records a batch signs). A record's first byte says its kind
-- (0xFF: EIP-712 typed data, packages/db signature-content.ts).
CREATE FUNCTION "audit_signature_signed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "audit_log" ("actor_type", "actor_id", "action", "project_id", "wallet_address", "subject", "details")
  SELECT 'api_key', n."api_key_id"::text,
         CASE WHEN substring(n."message" FROM 1 FOR 1) = '\xff'::bytea THEN 'signature.typed_data' ELSE 'signature.message' END,
         n."project_id", w."address", n."id"::text, jsonb_build_object('walletId', n."wallet_id")
    FROM new_rows n
    JOIN old_rows o ON o."project_id" = n."project_id" AND o."id" = n."id"
    JOIN "wallet" w ON w."id" = n."wallet_id"
   WHERE o."status" = 'PENDING' AND n."status" = 'SIGNED';
  RETURN NULL;
END $$;
CREATE TRIGGER "signature_audit_signed" AFTER UPDATE ON "signature"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_signature_signed"();

-- Transactions: one entry per signed attempt (first attempts, replacements, speed-ups and cancels
-- alike: each is a signature the wallet made). The actor is the key that sent the transaction; a
-- top-up (kind FUNDING) is the relay's own.
CREATE FUNCTION "audit_transaction_attempt_signed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "audit_log" ("actor_type", "actor_id", "action", "project_id", "wallet_address", "subject", "details")
  SELECT CASE WHEN t."kind" = 'FUNDING' THEN 'relay' ELSE 'api_key' END,
         CASE WHEN t."kind" = 'FUNDING' THEN 'relay' ELSE t."api_key_id"::text END,
         CASE WHEN a."cancel" THEN 'transaction.cancel_signed' ELSE 'transaction.signed' END,
         a."project_id", a."from_address", a."transaction_id"::text,
         jsonb_build_object('kind', t."kind", 'chainId', a."chain_id"::text, 'nonce', a."nonce"::text, 'hash', a."hash", 'attemptId', a."id")
    FROM new_rows a
    JOIN "transaction" t ON t."project_id" = a."project_id" AND t."id" = a."transaction_id";
  RETURN NULL;
END $$;
CREATE TRIGGER "transaction_attempt_audit_signed" AFTER INSERT ON "transaction_attempt"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_transaction_attempt_signed"();

-- Nonce fillers: the relay signs them on its own, a first one and each replacement.
CREATE FUNCTION "audit_nonce_filler_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "audit_log" ("actor_type", "actor_id", "action", "project_id", "wallet_address", "subject", "details")
  SELECT 'relay', 'relay', 'nonce_filler.signed', w."project_id", f."address", f."hash",
         jsonb_build_object('chainId', f."chain_id"::text, 'nonce', f."nonce"::text, 'replacement', false)
    FROM new_rows f LEFT JOIN "wallet" w ON w."address" = f."address"
   WHERE f."raw_transaction" IS NOT NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER "nonce_filler_audit_inserted" AFTER INSERT ON "nonce_filler"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_nonce_filler_inserted"();

CREATE FUNCTION "audit_nonce_filler_replaced"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "audit_log" ("actor_type", "actor_id", "action", "project_id", "wallet_address", "subject", "details")
  SELECT 'relay', 'relay', 'nonce_filler.signed', w."project_id", n."address", n."hash",
         jsonb_build_object('chainId', n."chain_id"::text, 'nonce', n."nonce"::text, 'replacement', o."raw_transaction" IS NOT NULL)
    FROM new_rows n
    JOIN old_rows o ON o."chain_id" = n."chain_id" AND o."address" = n."address" AND o."nonce" = n."nonce"
    LEFT JOIN "wallet" w ON w."address" = n."address"
   WHERE n."raw_transaction" IS NOT NULL AND n."hash" IS DISTINCT FROM o."hash";
  RETURN NULL;
END $$;
CREATE TRIGGER "nonce_filler_audit_replaced" AFTER UPDATE ON "nonce_filler"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_nonce_filler_replaced"();

-- The apps' role (docs/audit.md, "The apps' database role"): a group role the apps' LOGIN role is
-- a member of. Roles are per server, not per database: another database on the same server may be
-- creating it at this moment, which raises duplicate_object or unique_violation here.
-- An owner without CREATEROLE can run this migration once someone who has it made the role.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'relay_app') THEN
    CREATE ROLE "relay_app" NOLOGIN;
  END IF;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
  WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the role relay_app is missing and % may not create roles', current_user
      USING HINT = 'as a role with CREATEROLE, run CREATE ROLE relay_app NOLOGIN; then migrate again (docs/audit.md)';
END $$;

DO $$
DECLARE
  s text := current_schema();
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO "relay_app"', s);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO "relay_app"', s);
  EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO "relay_app"', s);
  -- Tables and sequences later migrations create (run by the same owner) are granted the same.
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO "relay_app"', s);
  EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT ON SEQUENCES TO "relay_app"', s);
END $$;

-- The audit log and the migrations' history: read and append only.
REVOKE ALL ON "audit_log" FROM "relay_app";
GRANT SELECT, INSERT ON "audit_log" TO "relay_app";
REVOKE ALL ON "_prisma_migrations" FROM "relay_app";
GRANT SELECT ON "_prisma_migrations" TO "relay_app";
