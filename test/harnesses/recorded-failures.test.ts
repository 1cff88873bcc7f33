/**
 * Replays the failed operations the real CLIs ran (the `failed-*` cases of scripts/record-fixtures.mjs:
 * a push to a remote that does not exist, a commit with nothing to commit, a `gh pr create` gh
 * refuses, a failing `node --test`) the way an attempt reads them: stdout through the adapter's
 * parser, each tool call and its result through `AttemptObserver.observe` (`operationsOf`, as the
 * engine does), and — for the harnesses whose hook says how a call exited (claude-code, gemini,
 * opencode: the gate runner records their operations) — the hook input each CLI really sent for the
 * failing call through its dialect and the `operations` gate. Then the attempt's summary and the
 * handoff prompt, which must say that each one was tried and failed, with its exit code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HARNESS_NAMES, type HarnessName } from '../../src/core/outcome.js';
import type { HarnessEvent, OperationData } from '../../src/events/schema.js';
import { AttemptObserver } from '../../src/execution/attempt-observer.js';
import type { ExecutionContext } from '../../src/execution/context-schema.js';
import { buildHandoffPrompt } from '../../src/execution/handoff.js';
import { operationsGate } from '../../src/gates/builtin/operations.js';
import { dialectOf } from '../../src/gates/dialects.js';
import { getAdapter } from '../../src/harnesses/registry.js';

const CASES = ['failed-push', 'failed-commit', 'failed-pr', 'failed-test'] as const;
type Case = (typeof CASES)[number];

/** The worktree of the hook payloads (the recording replaced the lab's by /srv/wt). */
const WORKTREE = '/srv/wt';

/** What each case's failing call must be recorded as, on every harness unless `byHarness` says otherwise. */
interface Failure {
  readonly kind: 'push' | 'commit' | 'pull_request' | 'test_run';
  /** The command line the CLI ran (scripts/record-fixtures.mjs `FAILING`). */
  readonly run: string;
  /** As recorded: the command's segment as written. */
  readonly command: string;
  readonly exitCode: number;
  /** The line that says why (not for test runs). */
  readonly error?: string;
  readonly counts?: { passed: number; failed: number; skipped: number };
}

const GH_REFUSAL =
  'must provide `--title` and `--body` (or `--fill` or `fill-first` or `--fillverbose`) when not running interactively';

const FAILURES: Record<Case, Failure> = {
  'failed-push': {
    kind: 'push',
    run: 'git push no-such-remote HEAD',
    command: 'git push no-such-remote HEAD',
    exitCode: 128,
    error: "fatal: 'no-such-remote' does not appear to be a git repository",
  },
  'failed-commit': {
    kind: 'commit',
    run: 'git commit -m "Add notes"',
    command: 'git commit -m "Add notes"',
    exitCode: 1,
    error: 'nothing to commit, working tree clean',
  },
  'failed-pr': {
    kind: 'pull_request',
    run: 'gh pr create --base main',
    command: 'gh pr create --base main',
    exitCode: 1,
    error: GH_REFUSAL,
  },
  'failed-test': {
    kind: 'test_run',
    run: 'node --test failing.test.mjs',
    command: 'node --test failing.test.mjs',
    exitCode: 1,
    counts: { passed: 0, failed: 1, skipped: 0 },
  },
};

const Exit = z.object({ exitCode: z.int().nullable(), signal: z.string().nullable() });

function fixture(harness: HarnessName, file: string): string {
  const path = fileURLToPath(new URL(`../fixtures/${harness}/${file}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`test/fixtures/${harness}/${file} missing: run scripts/record-fixtures.mjs`);
  return readFileSync(path, 'utf8');
}

function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '');
}

function eventsOf(harness: HarnessName, name: Case): HarnessEvent[] {
  const parse = getAdapter(harness).createParser();
  return lines(fixture(harness, `recorded/${name}.jsonl`)).flatMap((line) => parse(line));
}

/** The operations the engine's observer finds in the stream, as `AttemptObserver.observe` returns them. */
function streamOperations(harness: HarnessName, name: Case): OperationData[] {
  const observer = new AttemptObserver('record', WORKTREE);
  return eventsOf(harness, name).flatMap((event) => observer.observe(event));
}

/** The operations the gate runner records from the hook input the CLI sent after the failing call. */
function hookOperations(harness: HarnessName, name: Case): OperationData[] {
  const input = dialectOf(harness).parse('PostToolUse', fixture(harness, `hooks/${name}.json`));
  if (input.event !== 'PostToolUse') throw new Error(`hooks/${name}.json is not a PostToolUse input`);
  return operationsGate(input.call, input.result, { worktree: WORKTREE });
}

/** The operations the engine keeps for `harness`: the gates' from its hook when it says how calls exit, else the stream's. */
function recordedOperations(harness: HarnessName, name: Case): OperationData[] {
  return dialectOf(harness).reportsExitStatus ? hookOperations(harness, name) : streamOperations(harness, name);
}

const withoutToolId = ({ toolId: _, ...operation }: OperationData) => operation;

/** The failing call's operation, as it must be recorded. */
function expectedOperation(failure: Failure): Record<string, unknown> {
  if (failure.kind === 'test_run') {
    return {
      kind: 'test_run',
      command: failure.command,
      passed: false,
      exitCode: failure.exitCode,
      counts: failure.counts,
    };
  }
  return { kind: failure.kind, command: failure.command, ok: false, exitCode: failure.exitCode };
}

function failedOperation(operations: readonly OperationData[], failure: Failure): OperationData {
  const found = operations.filter((operation) => operation.kind === failure.kind);
  expect(found).toHaveLength(1);
  return found[0] as OperationData;
}

/** What the handoff must say of `failure`. */
function handoffWords(failure: Failure): string {
  const verb = { push: 'push', commit: 'commit', pull_request: 'open a pull request' } as const;
  if (failure.kind === 'test_run') {
    const { passed, failed, skipped } = failure.counts ?? { passed: 0, failed: 0, skipped: 0 };
    return `tests \`${failure.command}\` failed (exit ${failure.exitCode}; ${passed} passed, ${failed} failed, ${skipped} skipped)`;
  }
  return `tried to ${verb[failure.kind]} (\`${failure.command}\`); it failed (exit ${failure.exitCode})`;
}

describe.each(HARNESS_NAMES)('recorded real %s failed operations', (harness) => {
  const adapter = getAdapter(harness);

  it.each(CASES)('%s: every line parses and the turn completed', (name) => {
    const events = eventsOf(harness, name);
    expect(events.filter((event) => event.type === 'raw')).toEqual([]);
    const stderr = fixture(harness, `recorded/${name}.stderr.log`);
    const watch = adapter.createStderrWatcher?.();
    expect(
      lines(stderr)
        .map((line) => watch?.(line))
        .filter(Boolean),
    ).toEqual([]);
    const { exitCode, signal } = Exit.parse(JSON.parse(fixture(harness, `recorded/${name}.exit.json`)));
    const classification = adapter.classify({
      exitCode,
      signal,
      events,
      stderrTail: stderr.slice(-8192),
      timeZone: 'UTC',
    });
    expect(classification.outcome).toBe('completed');
  });

  if (harness === 'gemini') {
    it.each(CASES)('%s: the stream says the shell call succeeded and gives no exit code', (name) => {
      const events = eventsOf(harness, name);
      const shell = events.find((event) => event.type === 'tool.call' && event.data.shell === FAILURES[name].run);
      expect(shell).toBeDefined();
      const result = events.find(
        (event) => event.type === 'tool.result' && shell?.type === 'tool.call' && event.data.id === shell.data.id,
      );
      expect(result?.data).toMatchObject({ ok: true });
      expect(result?.data).not.toHaveProperty('exitCode');
      // So what the stream alone yields has no exit code; push and commit even look done.
      const operation = failedOperation(streamOperations(harness, name), FAILURES[name]);
      expect(operation).not.toHaveProperty('exitCode');
      if (name === 'failed-push' || name === 'failed-commit') expect(operation).toMatchObject({ ok: true });
      // A pull request without a URL is not opened; a test run with failures counted did not pass.
      if (name === 'failed-pr') expect(operation).toMatchObject({ ok: false });
      if (name === 'failed-test') expect(operation).toMatchObject({ passed: false, counts: FAILURES[name].counts });
    });
  } else {
    it.each(CASES)('%s: the stream yields the operation as failed, with its exit code', (name) => {
      const failure = FAILURES[name];
      const operation = failedOperation(streamOperations(harness, name), failure);
      expect(withoutToolId(operation)).toMatchObject(expectedOperation(failure));
      if (failure.error !== undefined) {
        expect(operation).toMatchObject({ error: failure.error });
      }
    });
  }

  if (dialectOf(harness).reportsExitStatus) {
    it.each(CASES)('%s: the hook input the CLI sent yields the operation as failed, with its exit code', (name) => {
      const failure = FAILURES[name];
      const operation = failedOperation(hookOperations(harness, name), failure);
      expect(withoutToolId(operation)).toMatchObject(expectedOperation(failure));
      if (failure.error !== undefined) {
        expect(operation).toMatchObject({ error: failure.error });
      }
    });
  }

  it('the summary lists each as tried (tests as a failed run) and the handoff says each failed, with its exit code', () => {
    const records = CASES.flatMap((name) => recordedOperations(harness, name)).map((data) => ({
      type: 'operation',
      data,
    }));
    const observer = new AttemptObserver('record', WORKTREE);
    const attempt = observer.summarize(
      {
        number: 1,
        harness,
        simulated: false,
        outcome: 'quota_exhausted',
        startedAt: '2026-12-02T13:30:00.000Z',
        endedAt: '2026-12-02T13:31:00.000Z',
        branch: 'harmflow/record-01',
      },
      records,
    );
    const [item] = attempt.workItems;
    expect(attempt.workItems).toHaveLength(1);
    expect(item?.tried).toEqual(
      (['failed-push', 'failed-commit', 'failed-pr'] as const).map((name) => {
        const failure = FAILURES[name];
        return expect.objectContaining({
          kind: failure.kind,
          command: failure.command,
          exitCode: failure.exitCode,
          why: `failed (exit ${failure.exitCode})`,
        });
      }),
    );
    expect(item?.testRuns).toEqual([
      { command: FAILURES['failed-test'].command, passed: false, exitCode: 1, counts: FAILURES['failed-test'].counts },
    ]);
    expect(item?.commits).toBeUndefined();
    expect(item?.push).toBeUndefined();
    expect(item?.pullRequest).toBeUndefined();

    const context: ExecutionContext = {
      version: 2,
      execution: '01record',
      task: 'record',
      branch: 'harmflow/record-01',
      baseRef: 'main',
      baseSha: '0123456789abcdef0123456789abcdef01234567',
      worktree: WORKTREE,
      writtenAt: '2026-12-02T13:31:00.000Z',
      attempts: [attempt],
    };
    const prompt = buildHandoffPrompt('Write notes.txt.', context, '/srv/run/context.json');
    for (const name of CASES) expect(prompt).toContain(handoffWords(FAILURES[name]));
    for (const name of ['failed-push', 'failed-commit', 'failed-pr'] as const) {
      const failure = FAILURES[name];
      expect(prompt).toContain(`${handoffWords(failure)}: ${failure.error}`);
    }
  });
});
