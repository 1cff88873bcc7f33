/**
 * describeError: an error and its causes on one line, without saying a system error twice
 * (src/core/errors.ts).
 */
import { describe, expect, it } from 'vitest';
import { describeError, fileProblem } from '../../src/core/errors.js';

/** A system error as node:fs throws one. */
function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

describe('describeError', () => {
  it('joins an error and its causes', () => {
    const inner = new Error('socket hang up');
    expect(describeError(new Error('cannot reach the service', { cause: inner }))).toBe(
      'cannot reach the service: socket hang up',
    );
  });

  it('does not repeat a system error whose code the line already names', () => {
    const cause = systemError('ENOENT', "no such file or directory, open 'task.yaml'");
    const error = new Error(`cannot read task file task.yaml: ${fileProblem(cause)}`, { cause });
    expect(describeError(error)).toBe('cannot read task file task.yaml: no such file (ENOENT)');
  });

  it('keeps a system error the line does not name', () => {
    const cause = systemError('EACCES', "permission denied, open 'task.yaml'");
    expect(describeError(new Error('cannot start', { cause }))).toBe(
      "cannot start: EACCES: permission denied, open 'task.yaml'",
    );
  });
});

describe('fileProblem', () => {
  it('says why in words and keeps the code', () => {
    expect(fileProblem(systemError('EISDIR', 'illegal operation on a directory'))).toBe(
      'a directory, not a file (EISDIR)',
    );
    expect(fileProblem(systemError('EMFILE', 'too many open files'))).toBe('cannot be read (EMFILE)');
    expect(fileProblem('not an error')).toBe('not an error');
  });
});
