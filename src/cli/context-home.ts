/**
 * Opens what the record commands read: the state directory and its store, and finds an execution
 * by its id or an unambiguous prefix of it. The caller closes the store.
 */
import { mkdirSync } from 'node:fs';
import { NotFoundError, UsageError } from '../core/errors.js';
import { type HomePaths, harmflowHome } from '../core/home.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { ExecutionRecord, Store } from '../store/store.js';

export interface OpenedHome {
  readonly home: HomePaths;
  readonly store: Store;
}

/** Opens HARMFLOW_HOME (creating it on first use) and its database. */
export function openHome(explicit?: string): OpenedHome {
  const home = harmflowHome(explicit);
  mkdirSync(home.root, { recursive: true });
  return { home, store: openSqliteStore(home.database) };
}

/** Finds the execution whose id is `idOrPrefix` or starts with it (at least 4 characters). */
export async function findExecution(store: Store, idOrPrefix: string): Promise<ExecutionRecord> {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (wanted.length < 4) throw new UsageError(`execution id "${idOrPrefix}" is too short: give at least 4 characters`);
  const exact = await store.getExecution(wanted);
  if (exact) return exact;
  const matches = await store.findExecutions({ prefix: wanted });
  if (matches.length === 0) throw new NotFoundError(`no execution "${idOrPrefix}" in this HARMFLOW_HOME`);
  if (matches.length > 1) {
    throw new UsageError(`execution id "${idOrPrefix}" is ambiguous: ${matches.length} executions start with it`);
  }
  return matches[0] as ExecutionRecord;
}
