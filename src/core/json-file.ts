/** Writing JSON files so that a reader never sees half of one, and a crash never loses a whole one. */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { PRIVATE_FILE_MODE } from './home.js';

/**
 * Writes `value` as pretty JSON to `file` by a temporary file in the same folder, an fsync and a
 * rename, then an fsync of the folder: readers see the old file or the new one, never a mix, and once
 * this returns the new file survives a crash of the process or of the machine. Concurrent writers
 * each win whole. Costs two fsyncs (about a millisecond on a local SSD), so it is for records that
 * must not be lost — context.json, a queue acknowledged to a client — not for hot paths. The file is
 * its owner's alone (`mode`, 0600 unless given, core/home.ts): these files live in the state
 * directory. Returns the text written, for a caller that keeps its digest.
 */
export function writeJsonAtomic(file: string, value: unknown, mode = PRIVATE_FILE_MODE): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return text;
}
