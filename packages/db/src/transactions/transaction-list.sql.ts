import { RECEIPT_JSON } from "./transaction-receipt";
import { TRANSACTION_COLUMNS } from "./transaction-record";

/**
 * $1 project, $2 statuses (null: all), $3 chain id (null: all), $4 wallet address, any case (null:
 * all), $5 created at or after (null), $6 created before (null), $7 and $8 the cursor: the
 * (created_at, id) of the last row of the previous page (null: first page), $9 rows to read.
 *
 * Newest first by (created_at, id), keyset-paged: each page starts strictly after the previous
 * page's last row, so a row inserted meanwhile (newer, or committed late with an older time)
 * never shifts the rows after the cursor. Read along transaction_project_id_created_at_id_idx,
 * backwards from the cursor (and creation-time bounds); the other filters are checked on the rows
 * it walks.
 */
export const LIST_TRANSACTIONS = `
  SELECT ${TRANSACTION_COLUMNS}, ${RECEIPT_JSON} AS receipt
    FROM transaction t
   WHERE t.project_id = $1 AND t.kind = 'CALL' -- contract calls; top-ups are listed by the funding read
     AND ($2::"TransactionStatus"[] IS NULL OR t.status = ANY($2))
     AND ($3::bigint IS NULL OR t.chain_id = $3)
     AND ($4::text IS NULL OR lower(t.from_address) = lower($4))
     -- Bounds without OR, so they are the index scan's conditions (it starts at the cursor)
     -- rather than filters on every row from the newest down: a deep page reads only its own rows.
     AND t.created_at >= coalesce($5::timestamptz, '-infinity')
     AND t.created_at < coalesce($6::timestamptz, 'infinity')
     AND (t.created_at, t.id) < (coalesce($7::timestamptz, 'infinity'), coalesce($8::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
   ORDER BY t.created_at DESC, t.id DESC
   LIMIT $9`;
