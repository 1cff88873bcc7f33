/** Writing JSON files so that a reader never sees half of one. */
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';

/**
 * Writes `value` as pretty JSON to `file` by a temporary file in the same folder and a rename, so
 * readers see the old file or the new one, never a mix. Concurrent writers each win whole.
 */
export function writeJsonAtomic(file: string, value: unknown): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, file);
}
