/**
 * A database schema reduced to what Prisma's datamodel decides, in one shape for both sides of the
 * schema test: what schema.prisma asks for (expected-schema.ts) and what the migrated database has
 * (database-schema.ts). Types are written as Postgres' format_type() prints them.
 */
export interface ColumnShape {
  type: string;
  nullable: boolean;
  /** pg_get_expr() of the column default, or null. */
  default: string | null;
}

export interface IndexShape {
  name: string;
  /** Column names in index order; " DESC" appended for descending ones. */
  columns: string[];
  unique: boolean;
  /** Access method: btree, hash, gist, gin, brin, spgist. */
  method: string;
}

export interface ForeignKeyShape {
  name: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
}

export type ReferentialAction = "NO ACTION" | "RESTRICT" | "CASCADE" | "SET NULL" | "SET DEFAULT";

export interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: { name: string; columns: string[] } | null;
  /** Unique and plain indexes, the primary key's excluded; sorted by name. */
  indexes: IndexShape[];
  /** Sorted by name. */
  foreignKeys: ForeignKeyShape[];
}

export interface SchemaShape {
  /** Enum type name → labels in order. */
  enums: Record<string, string[]>;
  tables: Record<string, TableShape>;
}

export const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
