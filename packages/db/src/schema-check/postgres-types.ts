/**
 * How Prisma's Postgres connector stores a field: the column type as format_type() prints it, and
 * the default as pg_get_expr() prints it. Anything not listed throws, so a schema that starts
 * using a new type or default makes the schema test fail until this table learns it, rather than
 * pass without checking it.
 */

/** Columns of Prisma scalar types without a @db attribute. */
const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Boolean: "boolean",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
};

export function scalarType(prismaType: string): string {
  const type = SCALAR_TYPES[prismaType];
  if (!type) throw unsupported(`the Prisma type ${prismaType}`);
  return type;
}

/** A `@db.<name>(<args>)` native type. */
export function nativeType(name: string, args: readonly string[]): string {
  const mod = args.length > 0 ? `(${args.join(",")})` : "";
  const simple: Record<string, string> = {
    Text: "text",
    Uuid: "uuid",
    Integer: "integer",
    SmallInt: "smallint",
    BigInt: "bigint",
    Oid: "oid",
    DoublePrecision: "double precision",
    Real: "real",
    Money: "money",
    Boolean: "boolean",
    Date: "date",
    Json: "json",
    JsonB: "jsonb",
    ByteA: "bytea",
    Xml: "xml",
    Inet: "inet",
    Citext: "citext",
  };
  const withModifier: Record<string, string> = {
    VarChar: `character varying${mod}`,
    Char: `character${mod || "(1)"}`,
    Decimal: `numeric${mod || "(65,30)"}`,
    Timestamp: `timestamp${mod} without time zone`,
    Timestamptz: `timestamp${mod} with time zone`,
    Time: `time${mod} without time zone`,
    Timetz: `time${mod} with time zone`,
    Bit: `bit${mod || "(1)"}`,
    VarBit: `bit varying${mod}`,
  };
  const type = simple[name] ?? withModifier[name];
  if (!type) throw unsupported(`@db.${name}`);
  return type;
}

/** An identifier as Postgres prints it: quoted unless all lower case. */
export const quoteIdent = (name: string): string => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`);

export type PrismaDefault =
  | { name: string; args: ReadonlyArray<string | number> }
  | string
  | number
  | boolean
  | ReadonlyArray<string | number | boolean>;

/**
 * The column default Prisma's migration writes for a `@default(...)`, as pg_get_expr() prints
 * it back. `type` is the column's format_type(); `enumValue` is given for enum fields, as the
 * database label of the default value.
 */
export function defaultExpression(
  value: PrismaDefault | undefined,
  column: { table: string; name: string; type: string; prismaType: string; enumValue?: string },
): string | null {
  if (value === undefined) return null;
  const baseType = column.type.replace(/\(.*?\)/, "");
  if (Array.isArray(value)) {
    if (value.length === 0) return `ARRAY[]::${column.type}`;
    // Postgres keeps each element with its own cast: ARRAY['a'::text, 'b'::text].
    if (!column.type.endsWith("[]") || !value.every((v) => typeof v === "string")) throw unsupported("non-empty list defaults of other than text");
    const element = column.type.slice(0, -2);
    return `ARRAY[${value.map((v) => `'${String(v).replace(/'/g, "''")}'::${element}`).join(", ")}]`;
  }
  if (typeof value === "object" && !Array.isArray(value)) {
    const call = value as { name: string; args: ReadonlyArray<string | number> };
    switch (call.name) {
      case "now":
        return "CURRENT_TIMESTAMP";
      case "dbgenerated":
        if (typeof call.args[0] !== "string") throw unsupported("dbgenerated() without an expression");
        return call.args[0];
      case "autoincrement":
        return `nextval('${quoteIdent(`${column.table}_${column.name}_seq`)}'::regclass)`;
      // Made by Prisma Client, not by the database.
      case "uuid":
      case "cuid":
      case "nanoid":
      case "ulid":
        return null;
      default:
        throw unsupported(`@default(${call.name}())`);
    }
  }
  if (column.enumValue !== undefined) return `'${column.enumValue.replace(/'/g, "''")}'::${column.type}`;
  if (typeof value === "boolean") return String(value);
  if (NUMERIC_TYPES.has(column.prismaType)) return numericLiteral(String(value));
  return `'${String(value).replace(/'/g, "''")}'::${baseType}`;
}

const NUMERIC_TYPES = new Set(["Int", "BigInt", "Float", "Decimal"]);
const INT4 = 2n ** 31n;
const INT8 = 2n ** 63n;

/**
 * Postgres keeps a numeric default as the literal's own type (integer, bigint or numeric; the
 * cast to the column type is implicit) and prints a negative one as a quoted, cast constant.
 */
function numericLiteral(text: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw unsupported(`the numeric default ${text}`);
  let type = "numeric";
  if (!text.includes(".")) {
    const n = BigInt(text);
    if (n >= -INT4 && n < INT4) type = "integer";
    else if (n >= -INT8 && n < INT8) type = "bigint";
  }
  return text.startsWith("-") ? `'${text}'::${type}` : text;
}

const unsupported = (what: string): Error =>
  new Error(`schema check: ${what} is not mapped to Postgres yet; teach packages/db/src/schema-check/postgres-types.ts`);
