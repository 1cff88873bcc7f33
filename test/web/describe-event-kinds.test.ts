/**
 * The one describer of events (src/web/describe-event.ts) over every event type of
 * src/events/schema.ts: a table with at least one record of each type and the line every timeline
 * (the CLI's, the Workbench's, the terminal UI's) shows for it. A type added to the schema without
 * words fails here twice: the table's type (`satisfies Record<EventType, …>`) and the run, which
 * holds the describer's types and the table's to the schema's list.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventData, type EventType } from '../../src/events/schema.js';
import { DESCRIBED_TYPES, describeEvent } from '../../src/web/describe-event.js';

type Rows = { readonly [T in EventType]: readonly (readonly [EventData<T>, string])[] };

/** Each type's records (their data; attempt 2 on codex) and the line each is described with. */
const TABLE = {
  'execution.started': [
    [
      {
        task: 'slugify',
        repo: '/r',
        baseRef: 'main',
        baseSha: 'a0ad',
        branch: 'harmflow/slugify-1',
        worktree: '/w',
        deadline: '2026-12-01T10:30:00.000Z',
        chain: ['claude-code', 'codex'],
        maxSwitches: 2,
      },
      'task slugify on harmflow/slugify-1; chain claude-code → codex; deadline 2026-12-01T10:30:00.000Z',
    ],
  ],
  'attempt.started': [
    [
      {
        command: 'codex exec --json',
        model: 'gpt-5',
        simulated: true,
        handoff: true,
        timeLeftMs: 540_400,
        prompt: 'Add slugify.',
        sandboxed: true,
      },
      'attempt 2 on codex (gpt-5), simulated, given the handoff: codex exec --json; 540 s left; sandboxed',
    ],
    [
      { command: 'claude -p', simulated: false, handoff: false, timeLeftMs: 60_000, prompt: 'x', sandboxed: false },
      'attempt 2 on codex: claude -p; 60 s left; NOT sandboxed',
    ],
  ],
  'execution.resumed': [
    [{ reason: 'restart', openAttempt: 1 }, 'carried on after a restart; attempt 1 was left open'],
    [{ reason: 'restart' }, 'carried on after a restart'],
  ],
  'execution.reopened': [
    [
      { deadline: 'x', resumedSession: 's1', worktreeRestored: true },
      'reopened by a follow-up, resuming session s1; its worktree checked out again',
    ],
  ],
  'message.queued': [
    [{ turn: 't2', text: 'also update\nthe changelog', queued: 1 }, 't2 queued (1 waiting): also update the changelog'],
  ],
  'turn.started': [
    [{ turn: 't1', text: 'Add formatDate.', delivery: 'first' }, 't1 (first delivery): Add formatDate.'],
    [
      { turn: 't2', text: 'Run the tests.', delivery: 'first', resumedSession: '9858e5f0-9069-43b8' },
      't2 (first delivery, resumes session 9858e5f0): Run the tests.',
    ],
    [{ turn: 't1', text: 'x', delivery: 'handoff' }, 't1 (handed on after a switch): x'],
    [{ turn: 't1', text: 'x', delivery: 'redelivered' }, 't1 (delivered again after a restart): x'],
  ],
  'turn.redelivered': [
    [
      { turn: 't1', reason: 'HarmFlow restarted while this turn ran' },
      't1 delivered again: HarmFlow restarted while this turn ran',
    ],
  ],
  'turn.ended': [
    [{ turn: 't1', outcome: 'quota_exhausted', durationMs: 1520 }, 't1 ended: quota_exhausted after 1.5 s'],
  ],
  'cancel.requested': [[{ budgetMs: 60_000 }, 'cancel asked; the harness has 60 s to stop']],
  'switch.requested': [
    [
      { harness: 'codex', model: 'gpt-5.5', by: 'cli (alice)', reason: 'credit left' },
      'cli (alice) asks to switch to codex (gpt-5.5): credit left',
    ],
    [{ harness: 'gemini', by: 'workbench' }, 'workbench asks to switch to gemini'],
  ],
  'session.started': [[{ sessionId: 'c1f7676c', model: 'sonnet' }, 'session c1f7676c (sonnet)']],
  message: [[{ text: 'I will add\n\nslugify.' }, 'I will add slugify.']],
  'tool.call': [
    [{ id: 'c1', name: 'Bash', input: {}, shell: 'npm test' }, 'Bash: npm test'],
    [{ id: 'c2', name: 'Edit', input: {}, files: ['src/slug.js', 'README.md'] }, 'Edit: src/slug.js, README.md'],
    [{ id: 'c3', name: 'WebFetch', input: { url: 'https://x' } }, 'WebFetch: {"url":"https://x"}'],
  ],
  'tool.result': [
    [{ id: 'c1', ok: true, exitCode: 0 }, 'ok (exit 0)'],
    [{ id: 'c1', ok: false, exitCode: 1, output: 'boom' }, 'failed (exit 1)'],
  ],
  plan: [
    [
      {
        items: [
          { text: 'Add slugify', status: 'completed' },
          { text: 'Test it', status: 'in_progress' },
          { text: 'Open a pull request', status: 'pending' },
        ],
      },
      '[x] Add slugify [~] Test it [ ] Open a pull request',
    ],
  ],
  operation: [
    [{ kind: 'file_change', files: ['src/slug.js'] }, 'changed src/slug.js'],
    [
      { kind: 'commit', command: 'git commit -m x', ok: true, sha: 'e2ad641aa0', subject: 'Add slugify' },
      'commit e2ad641 "Add slugify"',
    ],
    [
      {
        kind: 'push',
        command: 'git push',
        ok: false,
        exitCode: 128,
        error: 'fatal: no',
        remote: 'origin',
        branch: 'x',
      },
      'push to origin/x (failed, exit 128): fatal: no',
    ],
    [
      { kind: 'pull_request', command: 'gh pr create', ok: true, url: 'https://forge/pr/1', number: 1 },
      'pull request https://forge/pr/1',
    ],
    [
      { kind: 'test_run', command: 'npm test', passed: false, exitCode: 1, counts: { passed: 3, failed: 1 } },
      'tests `npm test` failed (exit 1; 3 passed, 1 failed)',
    ],
  ],
  usage: [
    [{ inputTokens: 1200, outputTokens: 340, costUsd: 0.0123 }, '1200 tokens in, 340 out, $0.0123'],
    [{ outputTokens: 5 }, '? tokens in, 5 out'],
  ],
  retry: [
    [{ attempt: 2, maxRetries: 5, reason: 'overloaded' }, 'retry 2/5: overloaded'],
    [{ message: 'stream error' }, 'retry ?: stream error'],
  ],
  rate_limit: [
    [
      { status: 'rejected', window: 'five_hour', utilization: 1, resetsAt: '2026-12-01T15:00:00Z' },
      'rejected (five_hour), 100% used; resets at 2026-12-01T15:00:00Z',
    ],
  ],
  'harness.error': [[{ message: 'session expired', fatal: true }, 'fatal: session expired']],
  result: [
    [{ ok: false, message: "You've hit your limit" }, "failed: You've hit your limit"],
    [{ ok: true }, 'done'],
  ],
  warning: [[{ message: 'bubblewrap is not installed' }, 'bubblewrap is not installed']],
  raw: [[{ stream: 'stderr', line: 'warning: x' }, 'stderr: warning: x']],
  'quota.exhausted': [
    [
      { message: "You've hit your limit", resetsAt: '2026-12-01T15:00:00Z' },
      "codex is out of quota; resets at 2026-12-01T15:00:00Z — You've hit your limit",
    ],
    [{}, 'codex is out of quota'],
  ],
  'workspace.inspected': [
    [
      {
        head: 'a0adf0bcff285dc868a86fd',
        changedFiles: ['x'],
        commits: [{ sha: 'a', subject: 's' }],
        remote: { remote: 'origin', branch: 'harmflow/x', sha: 'b1c2d3e4f5' },
        durationMs: 12.4,
      },
      'head a0adf0b, 1 commit(s) since the base, 1 uncommitted file(s), origin/harmflow/x at b1c2d3e (12 ms)',
    ],
  ],
  'context.written': [
    [{ path: '/h/runs/e/context.json', attempts: 1 }, 'context.json written (1 attempt(s)): /h/runs/e/context.json'],
  ],
  'workspace.warning': [
    [{ kind: 'commits_failed', message: 'every commit failed: …' }, '⚠ every commit failed: …'],
    [
      { kind: 'unconfirmed', message: '`git push` exited 0, but the remote does not hold it' },
      '⚠ unconfirmed: `git push` exited 0, but the remote does not hold it',
    ],
  ],
  'harness.skipped': [
    [
      { harness: 'claude-code', until: '2026-12-01T15:00:00Z', known: false },
      'claude-code skipped: out of quota until 2026-12-01T15:00:00Z (estimated)',
    ],
    [
      { harness: 'claude-code', utilization: 0.97, threshold: 0.95 },
      'claude-code skipped: 97% of its limit used (switchAtUtilization 95%)',
    ],
  ],
  'quota.waiting': [
    [
      { harness: 'codex', until: '2026-12-01T15:00:00Z', known: true, waitMs: 1_800_000 },
      'every harness is out of quota: waiting for codex, which resets at 2026-12-01T15:00:00Z (30 min)',
    ],
  ],
  'wait.ended': [
    [{ harness: 'codex', reason: 'reset' }, 'codex has reset: carrying on'],
    [{ harness: 'codex', reason: 'resumed' }, 'resumed by hand before the reset: carrying on, on codex'],
    [{ harness: 'codex', reason: 'switched' }, 'a switch by hand ends the wait'],
  ],
  'gate.denied': [
    [
      { gate: 'nothing-twice', tool: 'Bash', message: 'already pushed' },
      'gate nothing-twice refused Bash: already pushed',
    ],
  ],
  'gate.failed': [
    [
      { gate: 'runner', event: 'PreToolUse', error: 'timed out', decision: 'deny', tool: 'Bash' },
      'gate runner failed on PreToolUse Bash (deny instead): timed out',
    ],
  ],
  'gate.flagged': [
    [
      { gate: 'commands', tool: 'Bash', message: 'rm -rf is refused' },
      'gate commands would have refused Bash (no hooks: seen after it ran): rm -rf is refused',
    ],
  ],
  'gate.noted': [[{ tool: 'Bash', notes: ['commands: cannot parse `a | b`'] }, 'Bash: commands: cannot parse `a | b`']],
  'gate.allowed': [
    [{ tool: 'Bash', gates: ['nothing-twice', 'commands'] }, 'gates allowed Bash'],
    [
      { tool: 'Bash', gates: ['nothing-twice'], notes: ['nothing-twice: could not ask the forge'] },
      'gates allowed Bash — nothing-twice: could not ask the forge',
    ],
  ],
  failover: [
    [
      { from: 'claude-code', to: 'codex', reason: 'quota_exhausted', switchNumber: 1, maxSwitches: 2 },
      'claude-code → codex (quota_exhausted; switch 1 of 2)',
    ],
    [
      {
        from: 'claude-code',
        to: 'codex',
        reason: 'switched',
        switchNumber: 0,
        maxSwitches: 1,
        hand: { harness: 'codex', model: 'gpt-5.5' },
        requestedBy: 'cli (alice)',
        note: 'credit left',
      },
      'claude-code → codex (gpt-5.5) (asked by cli (alice): credit left; switch 0 of 1)',
    ],
    [
      {
        from: 'claude-code',
        to: 'codex',
        reason: 'switched',
        switchNumber: 1,
        maxSwitches: 1,
        utilization: 0.96,
        threshold: 0.95,
      },
      'claude-code → codex (96% of its limit used, switchAtUtilization 95%; switch 1 of 1)',
    ],
  ],
  'attempt.ended': [
    [
      { outcome: 'quota_exhausted', exitCode: 1, signal: null, message: 'out of credits', durationMs: 5 },
      'attempt 2 on codex ended: quota_exhausted — out of credits',
    ],
  ],
  'execution.ended': [
    [
      { state: 'succeeded', attempts: 2, durationMs: 5, message: 'completed' },
      'succeeded after 2 attempt(s) — completed',
    ],
  ],
} satisfies Rows;

describe('describeEvent over every event type', () => {
  it('has words for every type of the schema, and the table a record of each', () => {
    expect([...DESCRIBED_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
    expect(Object.keys(TABLE).sort()).toEqual([...EVENT_TYPES].sort());
  });

  for (const type of EVENT_TYPES) {
    it(`describes ${type}`, () => {
      for (const [data, line] of TABLE[type]) {
        const record = {
          ts: '2026-12-01T10:00:00.000Z',
          execution: 'e',
          attempt: 2,
          harness: 'codex',
          source: 'executor',
          type,
          data,
        };
        expect(describeEvent(record)).toBe(line);
      }
    });
  }

  it('says a type it does not know as its data, and keeps a long line whole, on one line', () => {
    const record = (type: string, data: Record<string, unknown>) => ({
      ts: '',
      execution: 'e',
      source: 'executor',
      type,
      data,
    });
    expect(describeEvent(record('something.new', { a: 1 }))).toBe('{"a":1}');
    const long = describeEvent(record('message', { text: `${'word '.repeat(100)}\nend` }));
    expect(long).toBe(`${'word '.repeat(100)}end`);
  });
});
