/**
 * The database is its owner's alone (issue 21): opened in a new state directory it makes the folder
 * 0700 and the database, its WAL and shared-memory files 0600; opened in an older, looser one it
 * tightens the folder and the files; a shared folder (sticky, as /tmp) it leaves as it is.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { task } from './records.js';

const dir = mkdtempSync(join(tmpdir(), 'harmflow-store-modes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The mode bits of `path` in octal, the special ones (sticky) included. */
const modeOf = (path: string): string => (statSync(path).mode & 0o7777).toString(8);

/** Opens a store on `file`, writes a row and reads the modes while it is open (WAL and SHM exist). */
async function modesWhileOpen(file: string): Promise<string[]> {
  const store = openSqliteStore(file);
  try {
    await store.insertTask({ ...task, id: `task-${Math.random()}` });
    return [file, `${file}-wal`, `${file}-shm`].map(modeOf);
  } finally {
    await store.close();
  }
}

describe('the SQLite database file modes', () => {
  it('makes a new state directory 0700 and the database, -wal and -shm 0600', async () => {
    const home = join(dir, 'new', 'home');
    expect(await modesWhileOpen(join(home, 'harmflow.db'))).toEqual(['600', '600', '600']);
    expect(modeOf(home)).toBe('700');
  });

  it('tightens an older state directory and database that others could read', async () => {
    const home = join(dir, 'older');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    const file = join(home, 'harmflow.db');
    new Database(file).close();
    chmodSync(file, 0o644);
    expect(await modesWhileOpen(file)).toEqual(['600', '600', '600']);
    expect(modeOf(home)).toBe('700');
  });

  it('leaves a shared folder (sticky, as /tmp) as it is', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    expect(await modesWhileOpen(join(shared, 'harmflow.db'))).toEqual(['600', '600', '600']);
    expect(modeOf(shared)).toBe('1777');
  });
});
