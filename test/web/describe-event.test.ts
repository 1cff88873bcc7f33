import { describe, expect, it } from 'vitest';
import { formatRecord } from '../../src/cli/timeline.js';
import type { EventRecord as LoggedRecord } from '../../src/events/schema.js';
import { describeEnd, describeEvent, isRoutine, splitEndMessage } from '../../src/web/describe-event.js';
import type { EventRecord } from '../../src/web/records.js';

const record = (type: string, data: Record<string, unknown>, harness = 'claude-code', attempt = 1): EventRecord => ({
  ts: '2026-12-01T10:00:00.000Z',
  execution: '01jf3k9x7q2m4n6p8r0s2t4v6w',
  attempt,
  harness,
  source: 'executor',
  type,
  data,
});

describe('what the record observed, apart from what was reported', () => {
  const COMMITS_FAILED =
    'every commit failed: all 3 commits it tried left nothing on the branch; the last, `git commit -m x`, failed (exit 128): fatal: unable to auto-detect email address';

  it('marks a workspace warning in words, so it stands out without colour', () => {
    expect(describeEvent(record('workspace.warning', { kind: 'commits_failed', message: COMMITS_FAILED }))).toBe(
      `⚠ ${COMMITS_FAILED}`,
    );
    expect(
      describeEvent(
        record('workspace.warning', {
          kind: 'unconfirmed',
          message: '`git push -u origin HEAD` exited 0, but the remote does not hold it',
        }),
      ),
    ).toBe('⚠ unconfirmed: `git push -u origin HEAD` exited 0, but the remote does not hold it');
  });

  it('says the gates allowed a call in a few words, with their notes when they have any', () => {
    const allowed = record('gate.allowed', { tool: 'Bash', toolId: 't1', gates: ['nothing-twice', 'commands'] });
    expect(describeEvent(allowed)).toBe('gates allowed Bash');
    expect(isRoutine(allowed)).toBe(true);
    const noted = record('gate.allowed', {
      tool: 'Bash',
      gates: ['nothing-twice'],
      notes: ['nothing-twice: could not ask the forge: gh: command not found'],
    });
    expect(describeEvent(noted)).toBe(
      'gates allowed Bash — nothing-twice: could not ask the forge: gh: command not found',
    );
    expect(isRoutine(noted)).toBe(false);
    expect(isRoutine(record('tool.call', { name: 'Bash' }))).toBe(false);
    expect(describeEvent(record('gate.noted', { tool: 'Bash', notes: ['commands: cannot parse `a | b`'] }))).toBe(
      'Bash: commands: cannot parse `a | b`',
    );
  });

  it("says operations in the CLI's words, a failed one with its exit code and the line that says why", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'file_change', files: ['src/slug.js', 'test/slug.test.js'] }, 'changed src/slug.js, test/slug.test.js'],
      [
        { kind: 'commit', command: 'git commit -m x', ok: true, sha: 'e2ad641aa0', subject: 'Add slugify' },
        'commit e2ad641 "Add slugify"',
      ],
      [
        {
          kind: 'commit',
          command: 'git commit -m x',
          ok: false,
          exitCode: 128,
          error: 'fatal: unable to auto-detect email address',
        },
        'commit (failed, exit 128): fatal: unable to auto-detect email address',
      ],
      [
        { kind: 'push', command: 'git push', ok: false, exitCode: 128, remote: 'origin', branch: 'harmflow/x' },
        'push to origin/harmflow/x (failed, exit 128)',
      ],
      [{ kind: 'push', command: 'git push', ok: false }, 'push (failed)'],
      [
        { kind: 'pull_request', command: 'gh pr create', ok: true, url: 'https://forge.example/pr/7', number: 7 },
        'pull request https://forge.example/pr/7',
      ],
      [
        { kind: 'test_run', command: 'npm test', passed: false, exitCode: 1, counts: { passed: 3, failed: 1 } },
        'tests `npm test` failed (exit 1; 3 passed, 1 failed)',
      ],
    ];
    for (const [data, line] of cases) expect(describeEvent(record('operation', data)), line).toBe(line);
  });

  it('splits the warning off an end message that carries one', () => {
    expect(splitEndMessage(`Finished: 3 steps., but ${COMMITS_FAILED}`)).toEqual({
      message: 'Finished: 3 steps.',
      warning: COMMITS_FAILED,
    });
    expect(splitEndMessage(`succeeded, but ${COMMITS_FAILED}`)).toEqual({
      message: 'succeeded',
      warning: COMMITS_FAILED,
    });
    expect(splitEndMessage('every harness is out of quota')).toEqual({ message: 'every harness is out of quota' });
    expect(splitEndMessage(undefined)).toEqual({});
  });

  it("says the state with the end's words unless they repeat it, and the warning apart", () => {
    expect(describeEnd('succeeded', `completed, but ${COMMITS_FAILED}`)).toEqual({
      state: 'succeeded — completed',
      warning: COMMITS_FAILED,
    });
    expect(describeEnd('succeeded', `succeeded, but ${COMMITS_FAILED}`)).toEqual({
      state: 'succeeded',
      warning: COMMITS_FAILED,
    });
    expect(describeEnd('failed', 'attempt 1 crashed')).toEqual({ state: 'failed — attempt 1 crashed' });
    expect(describeEnd('running', undefined)).toEqual({ state: 'running' });
  });
});

/**
 * The CLI's timeline (`harmflow run`, `harmflow events`) says the same records with the same words;
 * it leaves out the gates' allowing of a call unless the gates noted something.
 */
describe("the CLI timeline's lines for the same records", () => {
  const logged = (type: string, data: Record<string, unknown>, attempt?: number): LoggedRecord =>
    ({
      ts: '2026-03-01T12:34:56.789Z',
      execution: '01m8kskfjw0wm52qqt0d1rjh58',
      source: type.startsWith('gate.') ? 'gate' : 'executor',
      type,
      data,
      ...(attempt !== undefined && { attempt, harness: 'claude-code' }),
    }) as LoggedRecord;

  it('sets a workspace warning apart, whole', () => {
    const message = `every commit failed: all 3 commits it tried left nothing on the branch; the last, \`git commit -m x\`, failed (exit 128): ${'fatal: unable to auto-detect email address '.repeat(3).trim()}`;
    expect(formatRecord(logged('workspace.warning', { kind: 'commits_failed', message }))).toBe(
      `!!!!!!!! 12:34:56.789  WARNING ${message}`,
    );
    expect(
      formatRecord(
        logged(
          'workspace.warning',
          { kind: 'unconfirmed', message: '`git push` exited 0, but the remote does not hold it' },
          1,
        ),
      ),
    ).toBe(
      '!!!!!!!! 12:34:56.789  WARNING (#1 claude-code) unconfirmed: `git push` exited 0, but the remote does not hold it',
    );
  });

  it('leaves out a gate.allowed without notes, and shows one with notes compactly', () => {
    expect(formatRecord(logged('gate.allowed', { tool: 'Bash', gates: ['nothing-twice', 'commands'] }, 1))).toBe(
      undefined,
    );
    expect(
      formatRecord(
        logged(
          'gate.allowed',
          { tool: 'Bash', gates: ['nothing-twice'], notes: ['nothing-twice: could not ask the forge'] },
          1,
        ),
      ),
    ).toBe(
      '12:34:56.789  #1 claude-code   gate.allowed        gates allowed Bash — nothing-twice: could not ask the forge',
    );
  });

  it('says a failed operation with its exit code and the line that says why', () => {
    expect(
      formatRecord(
        logged(
          'operation',
          {
            kind: 'push',
            command: 'git push -u origin HEAD',
            ok: false,
            exitCode: 128,
            error: 'fatal: could not read Username',
            remote: 'origin',
            branch: 'harmflow/x',
          },
          1,
        ),
      ),
    ).toBe(
      '12:34:56.789  #1 claude-code   operation           push to origin/harmflow/x (failed, exit 128): fatal: could not read Username',
    );
    expect(
      formatRecord(
        logged('operation', { kind: 'commit', command: 'git commit', ok: true, sha: 'e2ad641aa', subject: 'x' }, 1),
      ),
    ).toBe('12:34:56.789  #1 claude-code   operation           commit e2ad641 "x"');
  });
});
