/**
 * End to end against the REAL harness CLIs (the verified versions), each pointed at the loopback
 * model-API simulator through its own base-URL mechanism, run by the real engine through the real
 * adapters: a turn that edits a file, a follow-up turn that resumes the session, quota exhaustion,
 * a transient rate limit, an overload, and quota switches across two chains.
 * Runs when HARMFLOW_HARNESS_BIN_DIRS lists the CLIs (real-harnesses.ts says how).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HarnessName } from '../../src/core/outcome.js';
import type { HarnessSpec } from '../../src/core/task.js';
import { readEvents } from '../../src/events/log.js';
import { AttemptObserver } from '../../src/execution/attempt-observer.js';
import { executionSandbox } from '../../src/execution/attempt-sandbox.js';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { Recorder } from '../../src/execution/recorder.js';
import { runAttempt } from '../../src/execution/run-attempt.js';
import { getAdapter } from '../../src/harnesses/registry.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import type { ReplySpec } from '../../src/simulators/model-api/script.js';
import { GIT_IDENTITY } from '../execution/fixture.js';
import { sandboxedFlags } from '../execution/sandbox-fixture.js';
import { REAL_PATH, realCliLab, realHarnessesAvailable, SANDBOXED } from './real-harnesses.js';

const HARNESSES = ['claude-code', 'codex', 'gemini', 'opencode'] as const satisfies readonly HarnessName[];
const enabled = realHarnessesAvailable(HARNESSES);

/** The models each CLI is run with: catalogued slugs, so each offers its full tool set. */
const MODEL: Partial<Record<HarnessName, string>> = { codex: 'gpt-5.5', gemini: 'gemini-2.5-pro' };

/**
 * "Within seconds, not after minutes of the CLI's own retries": the slowest start (OpenCode, up to
 * ~13 s on a loaded machine) plus one request; the unbounded defaults take 75 s (OpenCode) to 180 s
 * (Claude Code).
 */
const QUICK_MS = 40_000;

/**
 * Per test: OpenCode retries an overload five times with exponential backoff (2 + 4 + 8 + 16 + 32 s)
 * before it reports it, ~75 s in all; Gemini's three attempts at a 429 take ~20 s.
 */
const TEST_TIMEOUT_MS = 150_000;

const scripts: Record<string, ReplySpec[]> = {};
for (const harness of HARNESSES) {
  scripts[`${harness}-edit`] = [
    { write: { path: 'edited.txt', content: `edited by ${harness}\n` } },
    'Done: wrote edited.txt.',
    'Second turn: the file is already there.',
  ];
  scripts[`${harness}-quota`] = [{ quota: true }];
  scripts[`${harness}-rate`] = [{ rateLimit: { times: 50, retryAfter: 1 } }];
  scripts[`${harness}-overload`] = [{ overload: true }];
}
scripts['claude-code-oauth-quota'] = [{ quota: true }];
scripts['chain-claude'] = [{ write: { path: 'from-claude.txt', content: 'claude\n' } }, { quota: true }];
scripts['chain-codex'] = [{ write: { path: 'from-codex.txt', content: 'codex\n' } }, 'Done: finished the task.'];
scripts['chain-gemini'] = [{ write: { path: 'from-gemini.txt', content: 'gemini\n' } }, { quota: true }];
scripts['chain-opencode'] = [
  { write: { path: 'from-opencode.txt', content: 'opencode\n' } },
  'Done: finished the task.',
];

const lab = realCliLab(enabled, () => scripts);

function link(harness: HarnessName, script: string, auth?: 'oauth'): Record<string, unknown> {
  const connection = connectHarness(harness, { url: lab.api.url, script, ...(auth && { auth }) });
  const model = MODEL[harness];
  return {
    harness,
    ...(model !== undefined && { model }),
    env: connection.env,
    args: connection.args,
    passEnv: Object.keys(GIT_IDENTITY),
  };
}

function task(harness: Record<string, unknown>, fallbacks: Record<string, unknown>[] = []) {
  return lab.bench.task({ harness, fallbacks, timeout: '3m' });
}

// The links pass the git identity through (passEnv): the host gives it.
const run = (t: ReturnType<typeof task>) =>
  lab.bench.run(t, { hostEnv: { ...process.env, ...GIT_IDENTITY, PATH: REAL_PATH } });

function requestsOf(script: string) {
  return lab.api.requests.filter((request) => request.script === script);
}

describe.skipIf(!enabled).each(HARNESSES)('the real %s CLI', (harness) => {
  it('completes a turn that edits a file, parsed into events with usage counted; a follow-up resumes the session', async () => {
    const result = await run(task(link(harness, `${harness}-edit`)));

    expect(result.attempts.map((a) => [a.outcome, a.message])).toEqual([['completed', expect.any(String)]]);
    expect(readFileSync(join(result.worktree, 'edited.txt'), 'utf8')).toBe(`edited by ${harness}\n`);
    const records = readEvents(lab.bench.home.eventsFile(result.id));
    expect(sandboxedFlags(records)).toEqual([SANDBOXED]);
    const sessionId = records.find((r) => r.type === 'session.started')?.data;
    expect(sessionId).toBeDefined();
    const fileChange = records.find((r) => r.type === 'operation' && r.data.kind === 'file_change');
    expect(fileChange?.data).toMatchObject({ kind: 'file_change', files: ['edited.txt'] });
    expect(records.filter((r) => r.type === 'raw')).toEqual([]);
    const [attempt] = await lab.bench.store.listAttempts(result.id);
    expect(attempt?.inputTokens).toBeGreaterThan(0);
    expect(attempt?.outputTokens).toBeGreaterThan(0);
    expect(attempt?.sessionId).toBeDefined();

    // A follow-up turn in the same attempt: same private home, same worktree, the session resumed.
    const events: string[] = [];
    const connection = connectHarness(harness, { url: lab.api.url, script: `${harness}-edit` });
    const model = MODEL[harness];
    const spec: HarnessSpec = {
      harness,
      ...(model !== undefined && { model }),
      args: connection.args,
      env: connection.env,
      passEnv: Object.keys(GIT_IDENTITY),
    };
    if (!attempt?.sessionId) throw new Error('the first turn reported no session');
    const observer = new AttemptObserver('t', result.worktree);
    const recorder = new Recorder({ append: (record) => events.push(record.type) }, result.id);
    // In the sandbox an execution's turns get (none where bubblewrap cannot make one).
    const sandbox = await executionSandbox({
      choice: undefined,
      execution: result.id,
      worktree: result.worktree,
      home: lab.bench.home,
      hostEnv: process.env,
      recorder,
      firstDrive: false,
    });
    expect(sandbox !== undefined).toBe(SANDBOXED);
    const followUp = await runAttempt({
      ref: { number: 1, harness },
      adapter: getAdapter(harness),
      spec,
      prompt: 'Is the file there?',
      resumeSessionId: attempt.sessionId,
      worktree: result.worktree,
      attemptDir: lab.bench.home.attemptDir(result.id, 1),
      deadline: Date.now() + 120_000,
      interruptBudgetMs: 2_000,
      path: REAL_PATH,
      hostEnv: { ...process.env, ...GIT_IDENTITY },
      recorder,
      observer,
      ...(sandbox !== undefined && { sandbox }),
      forgeDir: lab.bench.home.forge,
    });
    expect(followUp.outcome).toBe('completed');
    expect(observer.sessionId).toBe(attempt.sessionId);
    expect(observer.lastMessage).toContain('Second turn');
    expect(requestsOf(`${harness}-edit`).at(-1)?.lastUserText).toContain('Is the file there?');
  });

  it('classifies the provider quota error as quota_exhausted within seconds', async () => {
    const result = await run(task(link(harness, `${harness}-quota`)));
    const [attempt] = result.attempts;
    expect(attempt?.outcome).toBe('quota_exhausted');
    expect(Date.parse(attempt?.endedAt ?? '') - Date.parse(attempt?.startedAt ?? '')).toBeLessThan(QUICK_MS);
    if (harness === 'claude-code') expect(attempt?.message).toBe('Credit balance is too low');
  });

  it(
    'classifies a transient rate limit as rate_limited, not quota',
    async () => {
      const result = await run(task(link(harness, `${harness}-rate`)));
      expect(result.attempts.map((a) => a.outcome)).toEqual(['rate_limited']);
      expect(requestsOf(`${harness}-rate`).length).toBeGreaterThan(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'classifies an overload as overloaded, not quota',
    async () => {
      const result = await run(task(link(harness, `${harness}-overload`)));
      expect(result.attempts.map((a) => a.outcome)).toEqual(['overloaded']);
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!enabled)('the real claude-code CLI on a subscription (OAuth token)', () => {
  it('classifies its usage limit as quota_exhausted with the reset time it gives', async () => {
    const result = await run(task(link('claude-code', 'claude-code-oauth-quota', 'oauth')));
    const [attempt] = result.attempts;
    expect(attempt?.outcome).toBe('quota_exhausted');
    expect(attempt?.message).toMatch(/^You've hit your 5-hour limit · resets /);
    expect(Date.parse(attempt?.resetsAt ?? '')).toBeGreaterThan(Date.now());
  });
});

describe.skipIf(!enabled)('chains of real CLIs', () => {
  const chains: [HarnessName, HarnessName, string, string][] = [
    ['claude-code', 'codex', 'chain-claude', 'chain-codex'],
    ['gemini', 'opencode', 'chain-gemini', 'chain-opencode'],
  ];
  for (const [first, second, firstScript, secondScript] of chains) {
    it(`${first} runs out of quota → ${second} finishes the same execution with the handoff`, async () => {
      const result = await run(task(link(first, firstScript), [link(second, secondScript)]));

      expect(result.state).toBe('succeeded');
      expect(result.attempts.map((a) => [a.harness, a.outcome])).toEqual([
        [first, 'quota_exhausted'],
        [second, 'completed'],
      ]);
      expect(sandboxedFlags(readEvents(lab.bench.home.eventsFile(result.id)))).toEqual([SANDBOXED, SANDBOXED]);
      const firstFile = `from-${first.split('-')[0]}.txt`;
      expect(existsSync(join(result.worktree, firstFile))).toBe(true);
      expect(existsSync(join(result.worktree, `from-${second}.txt`))).toBe(true);
      // The second CLI's prompt carried the handoff: the simulator saw it.
      const handedOff = requestsOf(secondScript).filter((r) => r.reply !== 'title' && r.reply !== 'classifier');
      expect(handedOff[0]?.lastUserText).toContain(`HarmFlow context file: ${result.contextFile}`);
      expect(handedOff[0]?.lastUserText).toContain(`Attempt 1 — ${first}`);
      // context.json lists the first CLI's file change.
      const context = ExecutionContext.parse(JSON.parse(readFileSync(result.contextFile, 'utf8')));
      expect(context.attempts[0]?.workItems.flatMap((item) => item.filesChanged ?? [])).toContain(firstFile);
      expect(context.attempts[0]?.workspace?.uncommittedFiles).toContain(firstFile);
    });
  }
});
