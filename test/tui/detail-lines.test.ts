/**
 * The detail view's text renderers (src/tui/detail/*-lines.ts), on records like a real execution's:
 * claude-code runs out of quota, the execution fails over to codex, which runs a tool and ends. Each
 * renderer is checked for what it says and how it tones it, and every one for keeping its lines
 * within the width at 80 and 40 columns.
 */
import { describe, expect, it } from 'vitest';
import type { Changes, ExecutionWithAttempts } from '../../src/cli/client.js';
import type { ExecutionContext } from '../../src/execution/context-schema.js';
import { changesLines } from '../../src/tui/detail/changes-lines.js';
import { eventRecordLines, eventRow, eventTone } from '../../src/tui/detail/event-lines.js';
import { type Line, paragraph, textWidth, wrapText } from '../../src/tui/detail/lines.js';
import { type SummaryInput, summaryLines } from '../../src/tui/detail/summary-lines.js';
import { deliveredTo, transcriptLines } from '../../src/tui/detail/transcript-lines.js';
import type { EventRecord } from '../../src/web/records.js';
import { executionRecord } from './fake-service.js';

const ID = '01JAB0000000000000000000XY';

function record(
  type: string,
  data: Record<string, unknown>,
  at: string,
  attempt?: number,
  harness?: string,
): EventRecord {
  return {
    ts: `2025-03-02T${at}.000Z`,
    execution: ID,
    source: 'executor',
    type,
    data,
    ...(attempt !== undefined && { attempt }),
    ...(harness !== undefined && { harness }),
  };
}

const STORY: readonly EventRecord[] = [
  record('attempt.started', { simulated: false, handoff: false }, '14:00:00', 1, 'claude-code'),
  record(
    'turn.started',
    { turn: 't1', text: 'Add a health check endpoint', delivery: 'first' },
    '14:00:01',
    1,
    'claude-code',
  ),
  record('message', { text: 'I will add /health.' }, '14:00:05', 1, 'claude-code'),
  record('quota.exhausted', { resetsAt: '2025-03-02T19:00:00.000Z' }, '14:01:00', 1, 'claude-code'),
  record('attempt.ended', { outcome: 'quota_exhausted' }, '14:01:01', 1, 'claude-code'),
  record(
    'failover',
    { from: 'claude-code', to: 'codex', reason: 'quota_exhausted', switchNumber: 1, maxSwitches: 2 },
    '14:01:02',
  ),
  record('attempt.started', { simulated: false, handoff: true }, '14:01:03', 2, 'codex'),
  record(
    'turn.started',
    { turn: 't1', text: 'Add a health check endpoint', delivery: 'handoff' },
    '14:01:04',
    2,
    'codex',
  ),
  record(
    'tool.call',
    { id: 'call-1', name: 'bash', input: { command: 'npm test' }, shell: 'npm test' },
    '14:01:10',
    2,
    'codex',
  ),
  record('message', { text: 'Running the tests.' }, '14:01:11', 2, 'codex'),
  record(
    'tool.result',
    {
      id: 'call-1',
      ok: false,
      exitCode: 1,
      output: ['FAIL health.test.ts', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7'].join('\n'),
    },
    '14:01:20',
    2,
    'codex',
  ),
];

/** No line wider than `width`. */
function expectWithin(lines: readonly Line[], width: number): void {
  const wide = lines.filter((line) => textWidth(line.text) > width);
  expect(wide).toEqual([]);
}

function texts(lines: readonly Line[]): string[] {
  return lines.map((line) => line.text);
}

function lineWith(lines: readonly Line[], text: string): Line {
  const found = lines.find((line) => line.text.includes(text));
  if (found === undefined) throw new Error(`no line holds ${JSON.stringify(text)}:\n${texts(lines).join('\n')}`);
  return found;
}

describe('wrapText', () => {
  it('breaks at the last space that fits, and keeps each line', () => {
    expect(wrapText('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    expect(wrapText('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
    expect(wrapText('', 10)).toEqual(['']);
  });

  it('hard-breaks a word longer than the width, and takes a width under 1 for 1', () => {
    expect(wrapText('abcdefghij xy', 4)).toEqual(['abcd', 'efgh', 'ij', 'xy']);
    expect(wrapText('abc', 0)).toEqual(['a', 'b', 'c']);
  });

  it('removes terminal control sequences and control characters but keeps newlines', () => {
    const hostile =
      '\x1b[2J\x1b[31mred\x1b[0m \x1b]0;pwned title\x07ok\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\nnext\x07\x00\x7f\x9b1mend';
    expect(wrapText(hostile, 80)).toEqual(['red oklink', 'nextend']);
  });

  it('does not let an unterminated control string swallow the next lines', () => {
    expect(wrapText('before\x1b]0;title\nafter', 80)).toEqual(['before', 'after']);
  });

  it('expands tabs to the next stop of 4 columns', () => {
    expect(wrapText('a\tb\t\tc', 80)).toEqual(['a   b       c']);
  });

  it('gives indented, toned lines within the width with paragraph', () => {
    const lines = paragraph('alpha beta gamma delta', 12, 'muted', '  ');
    expect(lines).toEqual([
      { text: '  alpha beta', tone: 'muted' },
      { text: '  gamma', tone: 'muted' },
      { text: '  delta', tone: 'muted' },
    ]);
    expect(paragraph('x', 10)).toEqual([{ text: 'x' }]);
    expect('tone' in (paragraph('x', 10)[0] ?? {})).toBe(false);
  });
});

describe('eventRow and eventTone', () => {
  const failover = STORY[5] as EventRecord;

  it('lays out time, attempt, harness, type and the line about the event', () => {
    const row = eventRow({ ...failover, attempt: 2, harness: 'codex' }, 120);
    expect(row).toMatch(
      /^\d\d:\d\d:\d\d #2 {2}codex {7}failover {9}claude-code → codex \(quota_exhausted; switch 1 of 2\)$/,
    );
  });

  it('cuts a row to the width with …', () => {
    const row = eventRow(failover, 40);
    expect(textWidth(row)).toBe(40);
    expect(row.endsWith('…')).toBe(true);
    for (const each of STORY) expect(textWidth(eventRow(each, 80))).toBeLessThanOrEqual(80);
  });

  it('cleans what a harness wrote before it reaches the row', () => {
    const row = eventRow(record('message', { text: 'hi \x1b[2Jthere' }, '14:00:00', 1, 'codex'), 80);
    expect(row).not.toContain('\x1b');
    expect(row).toContain('hi there');
  });

  it('tones the switch story, refusals and a failed end', () => {
    expect(STORY.map(eventTone)).toEqual([
      'switch',
      undefined,
      undefined,
      'switch',
      'switch',
      'switch',
      'switch',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(eventTone(record('gate.denied', { gate: 'no-push', tool: 'bash', message: 'no' }, '14:00:00'))).toBe(
      'error',
    );
    expect(eventTone(record('gate.failed', { gate: 'g', decision: 'allow' }, '14:00:00'))).toBeUndefined();
    expect(eventTone(record('gate.failed', { gate: 'g', decision: 'deny' }, '14:00:00'))).toBe('error');
    expect(eventTone(record('execution.ended', { state: 'failed', attempts: 2 }, '14:00:00'))).toBe('error');
    expect(eventTone(record('execution.ended', { state: 'succeeded', attempts: 2 }, '14:00:00'))).toBeUndefined();
  });

  it('marks a workspace warning in its text and tone, and mutes the gates allowing a call', () => {
    const warning = record(
      'workspace.warning',
      { kind: 'commits_failed', message: 'every commit failed: the 1 commit it tried left nothing on the branch' },
      '14:00:00',
    );
    expect(eventTone(warning)).toBe('warn');
    expect(eventRow(warning, 200)).toMatch(/ workspace\.warning ⚠ every commit failed: the 1 commit/);
    const allowed = record('gate.allowed', { tool: 'Bash', gates: ['nothing-twice'] }, '14:00:00', 1, 'codex');
    expect(eventTone(allowed)).toBe('muted');
    expect(eventRow(allowed, 80)).toMatch(/gate\.allowed {5}gates allowed Bash$/);
  });

  it('opens the whole record as a heading and its JSON', () => {
    const lines = eventRecordLines(failover, 6, 40);
    expect(lines[0]?.tone).toBe('heading');
    expect(lines[0]?.text).toMatch(/^Event 6 · \d\d:\d\d:\d\d · failover$/);
    expect(texts(lines)).toContain('    "from": "claude-code",');
    expectWithin(lines, 40);
  });
});

describe('transcriptLines', () => {
  it('tells the story: turns, messages, the switch notes and the tool call with its later result', () => {
    const lines = transcriptLines(STORY, 80);
    expect(texts(lines)).toEqual([
      '— Attempt 1 on claude-code —',
      '',
      'You',
      '  Add a health check endpoint',
      '',
      'claude-code',
      '  I will add /health.',
      '',
      '— Switched claude-code → codex (quota_exhausted) —',
      '',
      '— Attempt 2 on codex —',
      '',
      'You (handed over)',
      '  Add a health check endpoint',
      '',
      '$ bash npm test',
      '  failed (exit 1)',
      '    FAIL health.test.ts',
      '    l2',
      '    l3',
      '    l4',
      '    l5',
      '    … 2 more lines',
      '',
      'codex',
      '  Running the tests.',
    ]);
    expect(lineWith(lines, 'Switched').tone).toBe('switch');
    expect(lineWith(lines, 'You (handed over)').tone).toBe('user');
    expect(lineWith(lines, 'claude-code').tone).toBe('switch');
    expect(lines.find((line) => line.text === 'codex')?.tone).toBe('assistant');
    expect(lineWith(lines, 'failed (exit 1)').tone).toBe('error');
    expect(lineWith(lines, '$ bash').tone).toBe('muted');
  });

  it('marks a redelivered turn, and shows a result whose call it never saw', () => {
    const lines = transcriptLines(
      [
        record('turn.started', { turn: 't2', text: 'and docs', delivery: 'redelivered' }, '15:00:00', 3, 'codex'),
        record('tool.result', { id: 'lost', ok: true, output: '' }, '15:00:01', 3, 'codex'),
      ],
      80,
    );
    expect(texts(lines)).toEqual(['You (redelivered)', '  and docs', '', '  ok']);
    expect(lines.at(-1)?.tone).toBe('ok');
  });

  it('keeps within the width at 80 and 40 columns', () => {
    const long = record('message', { text: `${'word '.repeat(60)}${'x'.repeat(100)}` }, '14:02:00', 2, 'codex');
    for (const width of [80, 40]) expectWithin(transcriptLines([...STORY, long], width), width);
  });

  it('names the harness a sent turn was delivered to, once it was', () => {
    expect(deliveredTo(STORY, 't1')).toBe('claude-code');
    expect(deliveredTo(STORY, 't2')).toBeUndefined();
    expect(deliveredTo([record('message.queued', { turn: 't2', text: 'x', queued: 1 }, '14:00:00')], 't2')).toBe(
      undefined,
    );
  });
});

describe('changesLines', () => {
  const changes: Changes = {
    base: 'a3f1c0de1234567890abcdef',
    files: [
      { path: 'src/health.ts', status: 'added', additions: 3, deletions: 0 },
      { path: 'src/new-name.ts', from: 'src/old-name.ts', status: 'renamed', additions: 1, deletions: 1 },
      { path: 'logo.png', status: 'modified', additions: 0, deletions: 0, binary: true },
    ],
    diff: [
      'diff --git a/src/health.ts b/src/health.ts',
      '--- /dev/null',
      '+++ b/src/health.ts',
      '@@ -0,0 +1,3 @@',
      '+export function health() {',
      `+\treturn 'ok'; // ${'long comment '.repeat(8)}`,
      '+}',
      '-gone \x1b[31mred',
      ' context',
      '',
    ].join('\n'),
    truncated: true,
  };

  it('lists the files and tones the diff', () => {
    const lines = changesLines(changes, 80);
    expect(texts(lines).slice(0, 4)).toEqual([
      '3 file(s) changed against a3f1c0de1234',
      '  src/health.ts  added, +3 −0',
      '  src/old-name.ts → src/new-name.ts  renamed, +1 −1',
      '  logo.png  modified, binary',
    ]);
    expect(lineWith(lines, 'diff --git').tone).toBe('heading');
    expect(lineWith(lines, '@@ -0,0').tone).toBe('heading');
    expect(lineWith(lines, '+++ b/src').tone).toBeUndefined();
    expect(lineWith(lines, '--- /dev/null').tone).toBeUndefined();
    expect(lineWith(lines, '+export function').tone).toBe('add');
    expect(lineWith(lines, '-gone').tone).toBe('del');
    expect(lineWith(lines, '-gone').text).toBe('-gone red');
    expect(lineWith(lines, "+   return 'ok'").text.endsWith('…')).toBe(true);
    expect(lines.at(-1)).toEqual({ text: 'The diff is cut here: it is longer than the service sends.', tone: 'muted' });
    expect(lines.filter((line) => line.text === ' context')).toHaveLength(1);
  });

  it('keeps within the width at 80 and 40 columns, the diff cut rather than wrapped', () => {
    for (const width of [80, 40]) {
      const lines = changesLines(changes, width);
      expectWithin(lines, width);
      expect(lines.filter((line) => line.tone === 'add')).toHaveLength(3);
    }
  });

  it('says when nothing changed, what went wrong, or that it is loading', () => {
    expect(changesLines({ ...changes, files: [], diff: '', truncated: false }, 80)).toEqual([
      { text: 'No change against a3f1c0de1234.', tone: 'muted' },
    ]);
    expect(changesLines(new Error('the worktree is gone'), 80)).toEqual([
      { text: 'the worktree is gone', tone: 'error' },
    ]);
    expect(changesLines(undefined, 80)).toEqual([{ text: 'Loading…', tone: 'muted' }]);
  });
});

describe('summaryLines', () => {
  const execution: ExecutionWithAttempts['execution'] = {
    ...executionRecord({ id: ID, taskName: 'health-check' }),
    baseSha: 'a3f1c0de1234567890abcdef',
    state: 'waiting',
    message: 'every harness is out of quota',
    worktree: '/home/me/.harmflow/worktrees/01JAB0000000000000000000XY',
  };
  const attempts: ExecutionWithAttempts['attempts'] = [
    {
      execution: ID,
      number: 1,
      harness: 'claude-code',
      model: 'claude-sonnet-4-5-20250929',
      simulated: true,
      startedAt: '2025-03-02T14:00:00.000Z',
      endedAt: '2025-03-02T14:01:01.000Z',
      outcome: 'quota_exhausted',
      inputTokens: 12_000,
      outputTokens: 345,
      costUsd: 0.4213,
    },
    {
      execution: ID,
      number: 2,
      harness: 'codex',
      simulated: false,
      startedAt: '2025-03-02T14:01:03.000Z',
    },
  ];
  const context: ExecutionContext = {
    version: 2,
    execution: ID,
    task: 'health-check',
    branch: execution.branch,
    baseRef: 'main',
    baseSha: execution.baseSha,
    worktree: execution.worktree,
    writtenAt: '2025-03-02T14:01:02.000Z',
    attempts: [
      {
        number: 1,
        harness: 'claude-code',
        outcome: 'quota_exhausted',
        startedAt: '2025-03-02T14:00:00.000Z',
        endedAt: '2025-03-02T14:01:01.000Z',
        lastMessage: 'I will add /health.',
        workItems: [
          {
            text: 'Add the route',
            reported: { status: 'completed', by: 'claude-code plan' },
            filesChanged: ['src/health.ts'],
          },
          { text: 'Test it', reported: { status: 'in_progress', by: 'claude-code plan' } },
        ],
      },
    ],
  };
  const input: SummaryInput = {
    execution,
    attempts,
    context,
    disk: { worktreeBytes: 12 * 1024 * 1024, runBytes: 1536 },
    wait: { harness: 'claude-code', until: '2025-03-02T15:00:00.000Z', known: true },
    now: new Date('2025-03-02T14:01:00.000Z'),
  };

  it('states the facts, the wait, the chain and what each attempt did', () => {
    const lines = summaryLines(input, 80);
    expect(lineWith(lines, 'Task').text).toBe('Task        health-check');
    expect(lineWith(lines, 'State')).toEqual({
      text: 'State       waiting — every harness is out of quota',
      tone: 'switch',
    });
    expect(lineWith(lines, 'Base').text).toBe('Base        main (a3f1c0de1234)');
    expect(lineWith(lines, 'Disk').text).toBe('Disk        worktree 12.0 MiB · run directory 1.5 KiB');
    expect(lineWith(lines, 'Waiting for claude-code, which resets at').tone).toBe('switch');
    expect(lineWith(lines, 'in 59 min').text).toContain('(in 59 min)');
    expect(lineWith(lines, 'Chain').tone).toBe('heading');
    const header = lineWith(lines, 'Harness');
    expect(header.tone).toBe('muted');
    expect(header.text).toMatch(/^# Harness +Model +Duration +Outcome +Tokens +Cost$/);
    const first = lineWith(lines, 'quota_exhausted');
    expect(first.text).toMatch(
      /^1 claude-code \(simulated\) claude-sonne\S*… +1 min 01 s +quota_exhausted +12\.3k +\$0\.42$/,
    );
    expect(lineWith(lines, 'codex').text).toMatch(/^2 codex +– +running +– +– +–$/);
    expect(lineWith(lines, 'What each attempt did (context.json)').tone).toBe('heading');
    expect(lineWith(lines, 'Attempt 1: claude-code — quota_exhausted').tone).toBe('heading');
    expect(texts(lines)).toContain("  claude-code's last message (its own words, not checked): I will add /health.");
    const items = texts(lines).slice(texts(lines).indexOf('  - Add the route'));
    expect(items).toEqual([
      '  - Add the route',
      '    reported       claude-code plan: completed',
      '    observed       changed src/health.ts',
      '  - Test it',
      '    reported       claude-code plan: in progress',
    ]);
    expectWithin(lines, 80);
  });

  it('marks an unconfirmed item in words, and keeps what was reported apart from what was observed and tried', () => {
    const [attempt] = context.attempts;
    const unconfirmed: SummaryInput = {
      ...input,
      execution: {
        ...execution,
        state: 'succeeded',
        message:
          "Opened the pull request., but every commit failed: the 1 commit it tried left nothing on the branch; the last, `git commit -m 'Add /health'`, failed (exit 128): fatal: unable to auto-detect email address",
      },
      wait: undefined,
      context: {
        ...context,
        attempts: [
          {
            ...(attempt as (typeof context.attempts)[number]),
            outcome: 'completed',
            lastMessage: 'Opened the pull request.',
            workItems: [
              {
                text: 'Open a pull request',
                reported: { status: 'completed', by: 'claude-code plan' },
                filesChanged: ['src/health.ts'],
                tried: [
                  {
                    kind: 'commit',
                    command: "git commit -m 'Add /health'",
                    exitCode: 128,
                    error: 'fatal: unable to auto-detect email address',
                    why: 'failed (exit 128)',
                  },
                ],
                unconfirmed: 'HarmFlow saw no pull request opened by this attempt',
              },
            ],
          },
        ],
      },
    };
    const lines = summaryLines(unconfirmed, 80);
    expectWithin(lines, 80);
    // The end's warning comes first, marked in words; the state keeps the rest of the end message.
    expect(lines.slice(0, 3)).toEqual([
      { text: '⚠ Warning: every commit failed: the 1 commit it tried left nothing on the', tone: 'warn' },
      {
        text: "  branch; the last, `git commit -m 'Add /health'`, failed (exit 128): fatal:",
        tone: 'warn',
      },
      { text: '  unable to auto-detect email address', tone: 'warn' },
    ]);
    expect(lineWith(lines, 'State')).toEqual({
      text: 'State       succeeded — Opened the pull request.',
      tone: 'warn',
    });
    const item = lines.findIndex((line) => line.text === '  ⚠ Open a pull request');
    expect(lines[item]?.tone).toBe('warn');
    expect(lines.slice(item + 1)).toEqual([
      { text: '    reported       claude-code plan: completed' },
      { text: '    ⚠ unconfirmed  HarmFlow saw no pull request opened by this attempt', tone: 'warn' },
      { text: '    observed       changed src/health.ts' },
      { text: '    tried          commit failed (exit 128): fatal: unable to auto-detect email', tone: 'error' },
      { text: "                   address — `git commit -m 'Add /health'`", tone: 'error' },
    ]);
    // The marks are text, which NO_COLOR (no tones drawn) keeps.
    expect(texts(lines).filter((text) => text.includes('⚠'))).toHaveLength(3);
    expect(texts(lines)).toContain("  claude-code's last message (its own words, not checked): Opened the pull");
    for (const width of [40, 20]) expectWithin(summaryLines(unconfirmed, width), width);
    expect(texts(summaryLines(unconfirmed, 40))).toContain('    ⚠ unconfirmed  HarmFlow saw no pull');
  });

  it('says what each work item left outside the worktree, and no status when no plan came', () => {
    const [attempt] = context.attempts;
    const done: SummaryInput = {
      ...input,
      context: {
        ...context,
        attempts: [
          {
            ...(attempt as (typeof context.attempts)[number]),
            workItems: [
              {
                text: 'health-check',
                filesChanged: ['src/health.ts'],
                commits: [{ sha: 'a1b2c3d4e5f6', subject: 'Add /health' }],
                push: { remote: 'origin', branch: 'harmflow/health', sha: 'a1b2c3d4e5f6', observed: 'ls-remote' },
                pullRequest: { url: 'https://forge.example/pr/7', number: 7 },
                testRuns: [{ command: 'npm test', passed: true, counts: { passed: 3, failed: 0 } }],
              },
            ],
          },
        ],
      },
    };
    const lines = texts(summaryLines(done, 100));
    expect(lines.slice(lines.indexOf('  - health-check'))).toEqual([
      '  - health-check',
      '    observed       changed src/health.ts',
      '                   commit a1b2c3d "Add /health"',
      '                   pushed to origin/harmflow/health at a1b2c3d (git ls-remote)',
      '                   pull request #7 https://forge.example/pr/7',
      '                   tests `npm test` passed (3 passed, 0 failed)',
    ]);
    // No plan came: nothing is reported, and the legend says what reported would have meant.
    expect(lines.filter((text) => text.includes('reported'))).toEqual([]);
    expect(lines.some((text) => text.startsWith('Reported: what the harness said in its plan, not checked.'))).toBe(
      true,
    );
  });

  it('narrows and drops columns of the chain at 40 columns, and wraps the facts', () => {
    const lines = summaryLines(input, 40);
    expectWithin(lines, 40);
    const header = lineWith(lines, 'Harness');
    expect(header.text).not.toContain('Cost');
    expect(header.text).toContain('Outcome');
    expect(lineWith(lines, '1 claude').text).toContain('claude-code (sim)');
    const workspace = lines.findIndex((line) => line.text.startsWith('Workspace'));
    expect(lines[workspace + 1]?.text.startsWith(' '.repeat(12))).toBe(true);
  });

  it('names the harness sessions, the attempt running and where a follow-up goes, as show and the Workbench do', () => {
    const routing = {
      execution: execution.id,
      sessions: [
        { harness: 'claude-code', sessionId: '5f1c2a4e-9d1b-4f6e-8c2a-0b7d3e1f4a6c', attempts: [1], turns: ['t1'] },
      ],
      running: { attempt: 2, harness: 'codex' },
      nextFollowUp: { kind: 'waits' as const, reason: 'attempt 2 (codex) is running' },
    };
    const lines = summaryLines({ ...input, routing }, 80);
    expect(lineWith(lines, 'Sessions').tone).toBe('heading');
    expect(texts(lines)).toContain('• claude-code session 5f1c2a4e-9d1b-4f6e-8c2a-0b7d3e1f4a6c — attempt 1; turn t1');
    expect(lineWith(lines, '• attempt 2 on codex')).toEqual({
      text: '• attempt 2 on codex: its session is recorded when it ends',
      tone: 'muted',
    });
    expect(lineWith(lines, 'Next follow-up:').text).toBe('Next follow-up: attempt 2 (codex) is running');
    expectWithin(summaryLines({ ...input, routing }, 30), 30);
    expect(texts(summaryLines(input, 80)).some((text) => text === 'Sessions')).toBe(false);
  });

  it('says what is loading or failed, and has no wait without one', () => {
    const lines = summaryLines({ ...input, context: undefined, disk: new Error('EACCES'), wait: undefined }, 80);
    expect(lineWith(lines, 'Disk').text).toBe('Disk        unknown: EACCES');
    expect(lineWith(lines, 'Loading…').tone).toBe('muted');
    expect(texts(lines).some((text) => text.includes('Waiting for'))).toBe(false);
    const failed = summaryLines({ ...input, context: new Error('no context.json yet'), disk: undefined }, 80);
    expect(lineWith(failed, 'no context.json yet').tone).toBe('error');
    expect(lineWith(failed, 'Disk').text).toBe('Disk        loading…');
  });
});

describe('every renderer', () => {
  it('keeps within the width down to a single column', () => {
    const changes: Changes = {
      base: 'a3f1c0de1234',
      files: [{ path: 'src/a-rather-long-path/health.ts', status: 'added', additions: 3, deletions: 0 }],
      diff: 'diff --git a/src/health.ts b/src/health.ts\n+\tline',
      truncated: true,
    };
    const execution = {
      ...executionRecord({ id: ID, taskName: 'health-check' }),
      message: 'a long message '.repeat(5),
    };
    const attempts: ExecutionWithAttempts['attempts'] = [
      { execution: ID, number: 1, harness: 'claude-code', simulated: true, startedAt: '2025-03-02T14:00:00.000Z' },
    ];
    const summaryInput: SummaryInput = {
      execution,
      attempts,
      context: undefined,
      disk: undefined,
      wait: undefined,
      now: new Date(),
    };
    for (const width of [1, 8, 20, 40, 80]) {
      expectWithin(summaryLines(summaryInput, width), width);
      expectWithin(transcriptLines(STORY, width), width);
      expectWithin(changesLines(changes, width), width);
      expectWithin(eventRecordLines(STORY[0] as EventRecord, 1, width), width);
      for (const each of STORY) expect(textWidth(eventRow(each, width))).toBeLessThanOrEqual(width);
    }
  });
});
