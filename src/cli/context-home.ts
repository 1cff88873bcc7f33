/**
 * Opens what the commands that run executions read and write: the state directory and its store.
 * The caller closes the store. (The record verbs open theirs lazily: cli/record-home.ts.)
 */
import { mkdirSync } from 'node:fs';
import { type HomePaths, harmflowHome } from '../core/home.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';

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
