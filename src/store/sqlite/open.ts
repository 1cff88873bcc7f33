/**
 * Opening the SQLite database the adapters share (`HARMFLOW_HOME/harmflow.db`, or a private
 * in-memory one for `:memory:`): its folder is created, WAL is set (readers never block the writer,
 * and several processes and connections share the file), the busy timeout, foreign keys and the
 * connection's `synchronous` level, and missing migrations are applied. Each adapter opens its own
 * connection and owns it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/**
 * 5000 ms: how long a statement waits for another process's write lock before failing. Writes here are
 * single rows or batches that hold the lock for milliseconds; 5 s covers a WAL checkpoint on a slow
 * disk, and still fails with an error instead of hanging when a process holds the lock for good.
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the database at `file`. `synchronous`: FULL makes every commit durable against power loss
 * (an fsync per commit); NORMAL under WAL is durable against a crash of the process, and a power loss
 * may lose the last commits but never corrupts the file.
 */
export function openDatabase(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
