-- Why a transaction failed, as the contract said it: the error signatures the request gave
-- (human-readable, ethers' full form, a JSON array of strings; null when none were given) to
-- decode custom errors by name, and the raw revert data of the simulation or of the re-run of a
-- call that reverted on chain (null when none was recorded). `error` keeps the decoded reason.
ALTER TABLE "transaction" ADD COLUMN "error_signatures" JSONB, ADD COLUMN "revert_data" BYTEA;
