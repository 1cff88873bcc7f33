/**
 * What the record verbs (`ls`, `show`, `events`, `context`) read, opened only as far as each needs.
 * They start from a bundle (cli/bundled-verbs.ts) in which SQLite's addon and the store load on first
 * use: `events` and `context` given a whole id find the execution's file by that id and never open the
 * database; a prefix, `ls` and `show` do. The caller closes a store it gets.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { isExecutionId } from '../core/execution-id-shape.js';
import type { HomePaths } from '../core/home.js';
import type { ExecutionRecord, Store } from '../store/store.js';
import { resolveExecution } from './id-prefix.js';

/** Opens the state directory's database (creating the directory on first use). */
export async function openRecordStore(home: HomePaths): Promise<Store> {
  mkdirSync(home.root, { recursive: true });
  const { openSqliteStore } = await import('../store/sqlite/sqlite-store.js');
  return openSqliteStore(home.database);
}

/** Finds the execution whose id is `idOrPrefix` or starts with it (cli/id-prefix.ts). */
export function findExecution(store: Store, idOrPrefix: string): Promise<ExecutionRecord> {
  return resolveExecution(idOrPrefix, {
    exact: (id) => store.getExecution(id),
    startingWith: (prefix) => store.findExecutions({ prefix }),
    where: 'in this HARMFLOW_HOME',
  });
}

/**
 * The id of the execution `idOrPrefix` names, for a verb that reads its file `fileOf(id)`: a whole id
 * whose file is there is the answer without the database; anything else is looked up (findExecution).
 */
export async function executionIdFor(
  home: HomePaths,
  idOrPrefix: string,
  fileOf: (id: string) => string,
): Promise<string> {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (isExecutionId(wanted) && existsSync(fileOf(wanted))) return wanted;
  const store = await openRecordStore(home);
  try {
    return (await findExecution(store, idOrPrefix)).id;
  } finally {
    await store.close();
  }
}
