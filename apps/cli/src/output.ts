/**
 * Everything the CLI prints goes through an `Output`, so tests capture it in-process and `main.ts`
 * binds it to the real streams. Results go to stdout (a JSON document with `--json`, a short
 * table otherwise); errors and hints go to stderr, so `--json` output stays parseable.
 */
export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** JSON with bigints (chain ids, wei) as decimal strings and dates as ISO strings. */
export const toJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2);

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

/** A plain, left-aligned table; an empty list prints a line saying so instead of bare headers. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): string {
  if (rows.length === 0) return empty;
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.value(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? "").length)));
  return cells
    .map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n");
}

export const formatDate = (d: Date | null): string => (d ? d.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");

/** Prints `data` as JSON when `--json` was given, else the human rendering. */
export function emit(output: Output, json: boolean | undefined, data: unknown, human: () => string): void {
  output.stdout(`${json ? toJson(data) : human()}\n`);
}
