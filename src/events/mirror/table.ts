/**
 * Where the PostgreSQL event mirror lives in a schema: its table (migration 4,
 * store/postgres/migrations.ts) and the notification channel its writer signals on. `schema` is a
 * checked identifier (store/postgres/schema-pool.ts).
 */

/** The mirror's table, `execution, position, line`, in `schema`. */
export function eventRecordsTable(schema: string): string {
  return `${schema}.event_records`;
}

/**
 * 63: PostgreSQL's longest identifier (NAMEDATALEN - 1); `pg_notify` refuses a longer channel name.
 */
const MAX_CHANNEL_LENGTH = 63;

/**
 * The channel on which a commit to the mirror of `schema` is announced, its payload the execution id.
 * Notifications are database-wide, so the channel is named by the schema; a schema name long enough
 * to be cut shares its channel with schemas of the same first 47 characters, which only wakes their
 * readers for nothing (a notification is a hint to read again, never the data).
 */
export function mirrorChannel(schema: string): string {
  return `harmflow_events_${schema}`.slice(0, MAX_CHANNEL_LENGTH);
}
