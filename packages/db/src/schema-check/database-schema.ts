import type { ClientBase } from "pg";
import { byName, type ReferentialAction, type SchemaShape, type TableShape } from "./schema-shape";

/** Prisma's own bookkeeping, not part of the datamodel. */
const IGNORED_TABLES = ["_prisma_migrations"];

const ACTIONS: Record<string, ReferentialAction> = {
  a: "NO ACTION",
  r: "RESTRICT",
  c: "CASCADE",
  n: "SET NULL",
  d: "SET DEFAULT",
};

/** What the database behind `client` has in its current schema, read from pg_catalog. */
export async function readDatabaseSchema(client: ClientBase): Promise<SchemaShape> {
  // One after another: a pg client runs one query at a time anyway.
  const tables = await client.query<{ table: string }>(TABLES_SQL, [IGNORED_TABLES]);
  const columns = await client.query<{ table: string; column: string; type: string; nullable: boolean; default: string | null }>(
    COLUMNS_SQL,
  );
  const indexes = await client.query<{ table: string; name: string; primary: boolean; unique: boolean; method: string; columns: string[] }>(
    INDEXES_SQL,
  );
  const foreignKeys = await client.query<{
    table: string;
    name: string;
    columns: string[];
    referencedTable: string;
    referencedColumns: string[];
    onDelete: string;
    onUpdate: string;
  }>(FOREIGN_KEYS_SQL);
  const enums = await client.query<{ name: string; labels: string[] }>(ENUMS_SQL);

  const shape: Record<string, TableShape> = {};
  for (const { table } of tables.rows) shape[table] = { columns: {}, primaryKey: null, indexes: [], foreignKeys: [] };
  for (const c of columns.rows) {
    const table = shape[c.table];
    if (table) table.columns[c.column] = { type: c.type, nullable: c.nullable, default: c.default };
  }
  for (const i of indexes.rows) {
    const table = shape[i.table];
    if (!table) continue;
    if (i.primary) table.primaryKey = { name: i.name, columns: i.columns };
    else table.indexes.push({ name: i.name, columns: i.columns, unique: i.unique, method: i.method });
  }
  for (const fk of foreignKeys.rows) {
    shape[fk.table]?.foreignKeys.push({
      name: fk.name,
      columns: fk.columns,
      referencedTable: fk.referencedTable,
      referencedColumns: fk.referencedColumns,
      onDelete: ACTIONS[fk.onDelete] ?? "NO ACTION",
      onUpdate: ACTIONS[fk.onUpdate] ?? "NO ACTION",
    });
  }
  for (const table of Object.values(shape)) {
    table.indexes.sort(byName);
    table.foreignKeys.sort(byName);
  }
  return { enums: Object.fromEntries(enums.rows.map((e) => [e.name, e.labels])), tables: shape };
}

const IN_SCHEMA = "n.nspname = current_schema()";

const TABLES_SQL = `
  SELECT c.relname::text AS "table"
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') AND NOT (c.relname = ANY ($1::text[]))`;

const COLUMNS_SQL = `
  SELECT c.relname::text AS "table", a.attname::text AS "column",
         format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
         pg_get_expr(d.adbin, d.adrelid) AS "default"
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`;

// Key columns in index order, " DESC" where indoption's first bit says so; expression and
// partial indexes show up as such so they cannot pass for a Prisma index.
const INDEXES_SQL = `
  SELECT t.relname::text AS "table", i.relname::text AS name, x.indisprimary AS "primary",
         x.indisunique AS "unique", am.amname::text AS method,
         ARRAY(SELECT COALESCE(a.attname::text, '(expression)')
                      || CASE WHEN k.opt & 1 = 1 THEN ' DESC' ELSE '' END
                      || CASE WHEN x.indpred IS NULL THEN '' ELSE ' (partial)' END
                 FROM unnest(x.indkey::int2[], x.indoption::int2[]) WITH ORDINALITY AS k(attnum, opt, ord)
                 LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum > 0
                WHERE k.ord <= x.indnkeyatts
                ORDER BY k.ord) AS columns
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_am am ON am.oid = i.relam
   WHERE ${IN_SCHEMA}`;

const FOREIGN_KEYS_SQL = `
  SELECT t.relname::text AS "table", con.conname::text AS name, r.relname::text AS "referencedTable",
         ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
         ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)
           AS "referencedColumns",
         con.confdeltype::text AS "onDelete", con.confupdtype::text AS "onUpdate"
    FROM pg_constraint con
    JOIN pg_class t ON t.oid = con.conrelid
    JOIN pg_class r ON r.oid = con.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
   WHERE ${IN_SCHEMA} AND con.contype = 'f'`;

const ENUMS_SQL = `
  SELECT t.typname::text AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
    FROM pg_type t
    JOIN pg_enum e ON e.enumtypid = t.oid
    JOIN pg_namespace n ON n.oid = t.typnamespace
   WHERE ${IN_SCHEMA}
   GROUP BY t.typname`;
