import { readFile } from "node:fs/promises";
import { getDMMF } from "@prisma/internals";
import { foreignKeyName, indexName, primaryKeyName, uniqueIndexName } from "./constraint-names";
import { defaultExpression, nativeType, quoteIdent, scalarType, type PrismaDefault } from "./postgres-types";
import { byName, type ColumnShape, type ReferentialAction, type SchemaShape, type TableShape } from "./schema-shape";

type Datamodel = Awaited<ReturnType<typeof getDMMF>>["datamodel"];
type Model = Datamodel["models"][number];
type Field = Model["fields"][number];

/**
 * Prisma's own reading of schema.prisma (its DMMF), from @prisma/internals at the CLI's exact
 * version. getDMMF runs Prisma's schema parser compiled to WebAssembly: no engine binary, no
 * network, so it works on machines where `prisma migrate` cannot run.
 */
export async function readDatamodel(schemaPath: string): Promise<Datamodel> {
  const dmmf = await getDMMF({ datamodel: await readFile(schemaPath, "utf8") });
  return dmmf.datamodel;
}

/**
 * The names of the partial indexes schema.prisma declares (`map: "…"` with `where: raw(…)`): the
 * DMMF does not carry an index's predicate, so the check knows them from the schema's text, and
 * expects their columns marked " (partial)" as the database read shows them.
 */
export function partialIndexNames(schemaText: string): Set<string> {
  return new Set([...schemaText.matchAll(/@@(?:unique|index)\([^\n]*map:\s*"([^"]+)"[^\n]*where:\s*raw\(/g)].map((m) => m[1]!));
}

/** The tables, columns, keys, indexes, foreign keys and enums a Prisma migration creates. */
export function expectedSchema(datamodel: Datamodel, partial: ReadonlySet<string> = new Set()): SchemaShape {
  const tableOf = new Map(datamodel.models.map((m) => [m.name, m.dbName ?? m.name]));
  const columnOf = (model: Model, fieldName: string): string => {
    const field = model.fields.find((f) => f.name === fieldName);
    if (!field) throw new Error(`schema check: ${model.name} has no field ${fieldName}`);
    return field.dbName ?? field.name;
  };
  const enums = new Map(datamodel.enums.map((e) => [e.name, e]));
  const modelNamed = (name: string): Model => {
    const model = datamodel.models.find((m) => m.name === name);
    if (!model) throw new Error(`schema check: no model ${name}`);
    return model;
  };

  const tables: Record<string, TableShape> = {};
  for (const model of datamodel.models) {
    const table = tableOf.get(model.name) as string;
    const shape: TableShape = { columns: {}, primaryKey: null, indexes: [], foreignKeys: [] };

    for (const field of model.fields) {
      if (field.kind === "object") continue;
      shape.columns[field.dbName ?? field.name] = column(field, table, enums);
    }

    for (const index of datamodel.indexes.filter((i) => i.model === model.name)) {
      const plain = index.fields.map((f) => columnOf(model, f.name));
      const columns = index.fields.map((f, i) => `${plain[i]}${f.sortOrder === "desc" ? " DESC" : ""}`);
      if (index.type === "id") {
        shape.primaryKey = { name: index.dbName ?? primaryKeyName(table), columns };
      } else if (index.type === "unique" || index.type === "normal") {
        const unique = index.type === "unique";
        const name = index.dbName ?? (unique ? uniqueIndexName(table, plain) : indexName(table, plain));
        const marked = partial.has(name) ? columns.map((c) => `${c} (partial)`) : columns;
        shape.indexes.push({ name, columns: marked, unique, method: (index.algorithm ?? "BTree").toLowerCase() });
      } else {
        throw new Error(`schema check: ${index.type} indexes (${model.name}) are not checked yet`);
      }
    }

    for (const field of model.fields) {
      const from = field.relationFromFields ?? [];
      if (field.kind !== "object" || from.length === 0) continue;
      const target = modelNamed(field.type);
      const columns = from.map((name) => columnOf(model, name));
      // The DMMF does not carry @relation(map: ...); a named foreign key fails the test on its name.
      const allRequired = from.every((name) => model.fields.find((f) => f.name === name)?.isRequired);
      shape.foreignKeys.push({
        name: foreignKeyName(table, columns),
        columns,
        referencedTable: tableOf.get(target.name) as string,
        referencedColumns: (field.relationToFields ?? []).map((name) => columnOf(target, name)),
        onDelete: action(field.relationOnDelete ?? (allRequired ? "Restrict" : "SetNull")),
        onUpdate: action(field.relationOnUpdate ?? "Cascade"),
      });
    }

    shape.indexes.sort(byName);
    shape.foreignKeys.sort(byName);
    tables[table] = shape;
  }

  return {
    enums: Object.fromEntries(datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name)])),
    tables,
  };
}

function column(field: Field, table: string, enums: Map<string, Datamodel["enums"][number]>): ColumnShape {
  const name = field.dbName ?? field.name;
  let type: string;
  let enumValue: string | undefined;
  if (field.kind === "enum") {
    const enumDef = enums.get(field.type);
    if (!enumDef) throw new Error(`schema check: no enum ${field.type}`);
    type = quoteIdent(enumDef.dbName ?? enumDef.name);
    if (typeof field.default === "string") {
      enumValue = enumDef.values.find((v) => v.name === field.default)?.dbName ?? field.default;
    }
  } else if (field.kind === "scalar") {
    type = field.nativeType ? nativeType(field.nativeType[0], field.nativeType[1]) : scalarType(field.type);
  } else {
    throw new Error(`schema check: ${table}.${name} is of kind ${field.kind}, which is not checked yet`);
  }
  if (field.isList) type = `${type}[]`;
  return {
    type,
    // Prisma creates list columns without NOT NULL, whatever the field says.
    nullable: field.isList || !field.isRequired,
    default: defaultExpression(field.default as PrismaDefault | undefined, { table, name, type, prismaType: field.type, enumValue }),
  };
}

const ACTIONS: Record<string, ReferentialAction> = {
  NoAction: "NO ACTION",
  Restrict: "RESTRICT",
  Cascade: "CASCADE",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

function action(prisma: string): ReferentialAction {
  const sql = ACTIONS[prisma];
  if (!sql) throw new Error(`schema check: unknown referential action ${prisma}`);
  return sql;
}
