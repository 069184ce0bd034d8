-- The time after which a PENDING signature request may no longer be signed: its gateway has
-- answered by then (500 on a time-out), so a worker that gets to it later must not sign it.
-- Null for requests stored by gateways of earlier versions: no such limit.
ALTER TABLE "signature" ADD COLUMN "sign_by" TIMESTAMPTZ(3);
