import { describe, expect, it } from 'vitest';
import { describeOperation, describeTestRun } from '../../src/web/describe-operation.js';

describe('describeOperation', () => {
  it('describes each kind of operation on one line', () => {
    expect(describeOperation({ kind: 'file_change', files: ['src/a.ts', 'src/b.ts'] })).toBe(
      'changed src/a.ts, src/b.ts',
    );
    expect(
      describeOperation({ kind: 'commit', command: 'git commit', ok: true, sha: 'abcdef0123', subject: 'Add week' }),
    ).toBe('commit abcdef0 "Add week"');
    expect(describeOperation({ kind: 'commit', command: 'git commit', ok: false, subject: 'x' })).toBe(
      'commit "x" (failed)',
    );
    expect(describeOperation({ kind: 'commit', command: 'git commit', ok: true })).toBe('commit');
    expect(
      describeOperation({ kind: 'push', command: 'git push', ok: true, remote: 'origin', branch: 'feature' }),
    ).toBe('push to origin/feature');
    expect(describeOperation({ kind: 'push', command: 'git push', ok: false })).toBe('push (failed)');
    expect(
      describeOperation({
        kind: 'pull_request',
        command: 'gh pr create',
        ok: true,
        url: 'https://x/pull/3',
        number: 3,
      }),
    ).toBe('pull request https://x/pull/3');
    expect(describeOperation({ kind: 'pull_request', command: 'gh pr create', ok: false })).toBe(
      'pull request (failed)',
    );
    expect(
      describeOperation({ kind: 'test_run', command: 'npm test', passed: false, counts: { passed: 3, failed: 1 } }),
    ).toBe('tests `npm test` failed (3 passed, 1 failed)');
    expect(describeOperation({ kind: 'test_run', command: 'pytest', passed: true })).toBe('tests `pytest` passed');
    expect(
      describeOperation({ kind: 'test_run', command: 'npm test', passed: false, exitCode: 1, counts: { failed: 2 } }),
    ).toBe('tests `npm test` failed (exit 1; 2 failed)');
    expect(describeOperation({ kind: 'push', command: 'git push', ok: false, exitCode: 128, remote: 'origin' })).toBe(
      'push to origin (failed, exit 128)',
    );
    expect(describeOperation({ kind: 'test_run', command: 'pytest', passed: true, counts: {} })).toBe(
      'tests `pytest` passed',
    );
  });
});

describe('describeTestRun', () => {
  it('gives a failed run its exit code, then the counts the runner printed', () => {
    expect(describeTestRun({ command: 'npm test', passed: false, exitCode: 1, counts: { passed: 3, failed: 1 } })).toBe(
      'tests `npm test` failed (exit 1; 3 passed, 1 failed)',
    );
    expect(describeTestRun({ command: 'go test ./...', passed: true, exitCode: 0 })).toBe(
      'tests `go test ./...` passed',
    );
  });
});
