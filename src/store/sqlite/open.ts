/**
 * Opening the SQLite database the adapters share (`HARMFLOW_HOME/harmflow.db`, or a private
 * in-memory one for `:memory:`): its folder is made private (0700) and the file 0600 (core/home.ts),
 * WAL is set (readers never block the writer, and several processes and connections share the file),
 * the busy timeout, foreign keys and the connection's `synchronous` level, and missing migrations are
 * applied. Each adapter opens its own connection and owns it.
 */
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, PRIVATE_FILE_MODE, tighten } from '../../core/home.js';
import { migrate } from './migrations.js';

/**
 * 5000 ms: how long a statement waits for another process's write lock before failing. Writes here are
 * single rows or batches that hold the lock for milliseconds; 5 s covers a WAL checkpoint on a slow
 * disk, and still fails with an error instead of hanging when a process holds the lock for good.
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * better-sqlite3's addon, named directly when it is where its build puts it, which saves a few
 * milliseconds of every command's start: its own lookup (the `bindings` package) tries a dozen paths.
 * Undefined elsewhere (a prebuilt layout), and the lookup runs.
 */
const ADDON = addonPath();

function addonPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    return undefined;
  }
}

/**
 * Opens the database at `file`. `synchronous`: FULL makes every commit durable against power loss
 * (an fsync per commit); NORMAL under WAL is durable against a crash of the process, and a power loss
 * may lose the last commits but never corrupts the file.
 */
export function openDatabase(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  if (file !== ':memory:') makePrivate(file);
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS, ...(ADDON !== undefined && { nativeBinding: ADDON }) });
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

/**
 * Makes the database at `file` its owner's alone before SQLite opens it: its folder private, the file
 * made empty with mode 0600 when it is new (an empty file is an empty database to SQLite), and an
 * older file, WAL and shared-memory file that others could read tightened. SQLite gives the -wal and
 * -shm files it makes the database file's mode, so they are 0600 too.
 */
function makePrivate(file: string): void {
  makePrivateDir(dirname(file));
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) tighten(path);
}
