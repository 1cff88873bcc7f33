/**
 * SQL statements built from a column list (record key → column name), for every adapter. The SQL is
 * what SQLite and PostgreSQL both speak; only the parameters differ: SQLite binds them by name
 * (`@key`, from a row keyed like the record) or in order (`?`, from an array), PostgreSQL by position
 * (`$n`, from `columnValues` or an array in column order).
 */

/** Record key → column name, in table order. */
export type Columns = Readonly<Record<string, string>>;

/** How a statement refers to the parameter bound to `key`, the `position`-th key (from 1) of its columns. */
export type Parameter = (key: string, position: number) => string;

/** SQLite's named parameters: `@key`. The default of every builder. */
const namedParameter: Parameter = (key) => `@${key}`;

/** SQLite's anonymous parameters: `?`, bound from an array in column order. */
export const orderedParameter: Parameter = () => '?';

/** PostgreSQL's positional parameters: `$n`, bound from `columnValues` of the same columns. */
export const positionalParameter: Parameter = (_key, position) => `$${position}`;

/** A row's values in column order: what positional parameters bind. */
export function columnValues(columns: Columns, row: Readonly<Record<string, unknown>>): unknown[] {
  return Object.keys(columns).map((key) => row[key]);
}

/** `column AS "key", …`: a select list whose rows come back keyed like the records (quoted: PostgreSQL folds case). */
export function selectList(columns: Columns): string {
  return Object.entries(columns)
    .map(([key, column]) => `${column} AS "${key}"`)
    .join(', ');
}

/** `INSERT INTO table (columns…) VALUES (parameters…)`. */
export function insertSql(table: string, columns: Columns, parameter: Parameter = namedParameter): string {
  const place = placeholders(columns, parameter);
  return `INSERT INTO ${table} (${Object.values(columns).join(', ')}) VALUES (${Object.keys(columns).map(place).join(', ')})`;
}

/** `UPDATE table SET column = parameter, … WHERE key columns`, setting every column but the keys. */
export function updateSql(
  table: string,
  columns: Columns,
  keys: readonly string[],
  parameter: Parameter = namedParameter,
): string {
  const place = placeholders(columns, parameter);
  const set = Object.entries(columns)
    .filter(([key]) => !keys.includes(key))
    .map(([key, column]) => `${column} = ${place(key)}`);
  const where = keys.map((key) => `${columns[key]} = ${place(key)}`);
  return `UPDATE ${table} SET ${set.join(', ')} WHERE ${where.join(' AND ')}`;
}

/**
 * `INSERT INTO table … ON CONFLICT (key columns) DO UPDATE SET column = excluded.column, …`: inserts
 * the row, or sets every column but the keys of the row it collides with, only `WHERE` `when` holds
 * (in which `excluded` is the new row and the table's own name, unqualified, the stored one).
 */
export function upsertSql(
  table: string,
  columns: Columns,
  keys: readonly string[],
  when: string,
  parameter: Parameter = namedParameter,
): string {
  const set = Object.entries(columns)
    .filter(([key]) => !keys.includes(key))
    .map(([, column]) => `${column} = excluded.${column}`);
  const conflict = keys.map((key) => columns[key]);
  return `${insertSql(table, columns, parameter)} ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${set.join(', ')} WHERE ${when}`;
}

/** The placeholder of each key of `columns`. */
function placeholders(columns: Columns, parameter: Parameter): (key: string) => string {
  const keys = Object.keys(columns);
  return (key) => parameter(key, keys.indexOf(key) + 1);
}
