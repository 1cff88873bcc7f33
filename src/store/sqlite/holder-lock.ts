/**
 * Holder locks: how the SQLite effect ledger tells a claim whose holder is still running from one
 * whose holder ended. Each open ledger holds an exclusive SQLite lock on a small file of its own,
 * `<dir>/<holder id>.lock`, for as long as it is open. The OS drops the lock when the process ends,
 * however it ends (SIGKILL, a power loss), so "can I lock that file?" answers "has that holder ended?"
 * with no clock, no heartbeat and no process id that could be reused. SQLite keeps POSIX locks per
 * process correctly across connections, so a check from the holder's own process answers too.
 *
 * The files stay empty (nothing is written; the journal is kept in memory). A holder deletes its own
 * on release, and a checker that finds one unlocked deletes it while holding its lock. A missing file
 * is a holder that ended, so the directory must not be cleaned by hand while HarmFlow runs. The lock
 * is only as good as the filesystem's locks: a local disk, as SQLite itself requires (not NFS).
 */
import { mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isExecutionId } from '../../core/execution-id-shape.js';

/** A lock this process holds for one holder id, until `release()`. */
export class HolderLock {
  readonly #db: Database.Database;
  readonly #file: string;

  private constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.#file = file;
  }

  /** Takes the lock for `holder` (a new id: nobody else ever holds it) in `dir`, creating the directory. */
  static acquire(dir: string, holder: string): HolderLock {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${holder}.lock`);
    const db = new Database(file, { timeout: 0 });
    try {
      // The journal in memory: nothing is ever written, and a killed holder leaves no journal file behind.
      db.pragma('journal_mode = MEMORY');
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      throw error;
    }
    return new HolderLock(db, file);
  }

  /** Deletes the file and drops the lock. Idempotent. */
  release(): void {
    if (!this.#db.open) return;
    try {
      unlinkSync(this.#file);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    } finally {
      this.#db.close();
    }
  }
}

/**
 * True while the holder's lock is held. A holder id that is not one HarmFlow makes (a ULID) names no
 * lock anybody can hold: false.
 */
export function holderIsLive(dir: string, holder: string): boolean {
  if (!isExecutionId(holder)) return false;
  const file = join(dir, `${holder}.lock`);
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0, fileMustExist: true });
  } catch {
    return false;
  }
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return true;
    throw error;
  }
  try {
    unlinkSync(file);
  } catch (error) {
    // ENOENT: another checker deleted it first.
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  } finally {
    db.exec('ROLLBACK');
    db.close();
  }
  return false;
}
