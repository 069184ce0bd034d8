/**
 * The names Prisma gives constraints and indexes that schema.prisma does not name with `map:`
 * (prisma-engines, psl ConstraintNames), cut to Postgres' 63-byte identifier limit the way Prisma
 * cuts them: the table and column part is shortened, the suffix kept.
 */
const MAX_IDENTIFIER = 63;

const withSuffix = (base: string, suffix: string): string =>
  `${base.length >= MAX_IDENTIFIER - suffix.length ? base.slice(0, MAX_IDENTIFIER - suffix.length) : base}${suffix}`;

export const primaryKeyName = (table: string): string => withSuffix(table, "_pkey");

export const uniqueIndexName = (table: string, columns: readonly string[]): string =>
  withSuffix(`${table}_${columns.join("_")}`, "_key");

export const indexName = (table: string, columns: readonly string[]): string =>
  withSuffix(`${table}_${columns.join("_")}`, "_idx");

export const foreignKeyName = (table: string, columns: readonly string[]): string =>
  withSuffix(`${table}_${columns.join("_")}`, "_fkey");
