/**
 * `sim` end to end, through the built CLI: every ending of both harnesses prints the real CLI's lines
 * (each stdout line parses as JSON), texts and exit codes; startup errors are one stderr line, exit 2.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { argvFor, type CliRun, jsonLines, requireBuilt, runCli, runSim, SIM, type SimHarness } from '../helpers.js';

let dir: string;

beforeAll(async () => {
  requireBuilt();
  dir = await mkdtemp(join(tmpdir(), 'harmflow-sim-endings-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Plays a scenario that says one thing and then ends as `end` says. */
function play(harness: SimHarness, end: unknown, argv = argvFor(harness, 'Add ISO week parsing')): Promise<CliRun> {
  return runSim({
    harness,
    scenario: { steps: [{ say: "I'll start with the parser." }, { end }] },
    dir,
    cwd: dir,
    argv,
    env: { CLAUDE_CODE_MAX_RETRIES: '2' },
  });
}

const byType = (lines: Record<string, unknown>[], type: string) => lines.filter((line) => line.type === type);

describe.concurrent('claude-code endings', () => {
  function expectInit(first: Record<string, unknown> | undefined, model = 'claude-sonnet-4-5') {
    expect(first).toMatchObject({
      type: 'system',
      subtype: 'init',
      cwd: dir,
      model,
      permissionMode: 'bypassPermissions',
      claude_code_version: '2.1.332',
    });
    expect(first?.session_id).toMatch(UUID);
    expect(first?.uuid).toMatch(UUID);
    expect(first?.apiKeySource).toBeTypeOf('string');
  }

  /** The synthetic assistant line and the error result of an API failure; returns the result. */
  function expectApiError(lines: Record<string, unknown>[], status: number) {
    const result = lines.at(-1) as Record<string, unknown>;
    const synthetic = lines.at(-2) as { type: string; message: { model: string; content: { text: string }[] } };
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: true,
      api_error_status: status,
      terminal_reason: 'api_error',
      session_id: lines[0]?.session_id,
    });
    expect(synthetic.type).toBe('assistant');
    expect(synthetic.message.model).toBe('<synthetic>');
    expect(synthetic.message.content[0]?.text).toBe(result.result);
    return result as { result: string };
  }

  test('complete: final text, a success result with usage and cost, exit 0', async () => {
    const run = await play('claude-code', 'complete');
    const lines = jsonLines(run);
    expectInit(lines[0]);
    const result = lines.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, api_error_status: null });
    expect(result?.session_id).toBe(lines[0]?.session_id);
    expect(result?.terminal_reason).toBe('completed');
    expect(result?.num_turns).toBe(2);
    expect(result?.total_cost_usd).toBeGreaterThan(0);
    expect(result?.usage).toMatchObject({ output_tokens: expect.any(Number) });
    const texts = byType(lines, 'assistant').map(
      (line) => (line.message as { content: { text?: string }[] }).content[0]?.text,
    );
    expect(texts).toEqual(["I'll start with the parser.", result?.result]);
    expect(run.code).toBe(0);
  });

  test('quota (subscription): rate_limit_event rejected, five-hour text with the reset time, exit 1', async () => {
    const before = Date.now() / 1000;
    const run = await play('claude-code', 'quota');
    const lines = jsonLines(run);
    const [event] = byType(lines, 'rate_limit_event') as { rate_limit_info: Record<string, unknown> }[];
    expect(event?.rate_limit_info).toMatchObject({ status: 'rejected', rateLimitType: 'five_hour' });
    const resetsAt = event?.rate_limit_info.resetsAt as number;
    expect(resetsAt).toBeGreaterThan(before + 2 * 3600 - 5);
    expect(resetsAt).toBeLessThan(before + 2 * 3600 + 65);
    const result = expectApiError(lines, 429);
    expect(result.result).toMatch(
      /^You've hit your 5-hour limit · resets (\w{3} \d{1,2}, )?\d{1,2}:\d{2}(am|pm) \(.+\)$/,
    );
    expect(run.code).toBe(1);
  });

  test('quota weekly (reset time from the scenario) and credit variants', async () => {
    const before = Date.now() / 1000;
    const weekly = jsonLines(await play('claude-code', { quota: { kind: 'weekly', resetsIn: '2d' } }));
    const [event] = byType(weekly, 'rate_limit_event') as { rate_limit_info: Record<string, unknown> }[];
    expect(event?.rate_limit_info.rateLimitType).toBe('seven_day');
    expect(event?.rate_limit_info.resetsAt).toBeGreaterThan(before + 2 * 86_400 - 5);
    expect(event?.rate_limit_info.resetsAt).toBeLessThan(before + 2 * 86_400 + 10);
    expect(expectApiError(weekly, 429).result).toMatch(
      /^You've hit your weekly limit · resets \w{3} \d{1,2}, \d{1,2}:\d{2}(am|pm) \(.+\)$/,
    );
    const credit = await play('claude-code', { quota: 'credit' });
    const lines = jsonLines(credit);
    expect(byType(lines, 'rate_limit_event')).toEqual([]);
    expect(expectApiError(lines, 400).result).toBe('Credit balance is too low');
    expect(credit.code).toBe(1);
  });

  test('rate_limit: api_retry lines (CLAUDE_CODE_MAX_RETRIES of them), then a 429 error, exit 1', async () => {
    const run = await play('claude-code', 'rate_limit');
    const lines = jsonLines(run);
    const retries = lines.filter((line) => line.subtype === 'api_retry');
    expect(retries).toHaveLength(2);
    expect(retries[1]).toMatchObject({ attempt: 2, max_retries: 2, error: 'rate_limit', error_status: 429 });
    expect(expectApiError(lines, 429).result).toMatch(
      /^API Error: Request rejected \(429\) · This request would exceed the rate limit for your organization/,
    );
    expect(run.code).toBe(1);
  });

  test('overloaded and auth: 529 and 401 texts, exit 1', async () => {
    const overloaded = await play('claude-code', 'overloaded');
    const lines = jsonLines(overloaded);
    expect(lines.filter((line) => line.subtype === 'api_retry')[0]).toMatchObject({ error: 'overloaded' });
    expect(expectApiError(lines, 529).result).toMatch(/^API Error: 529 Overloaded\. /);
    expect(overloaded.code).toBe(1);
    const auth = await play('claude-code', 'auth');
    expect(expectApiError(jsonLines(auth), 401).result).toBe('Invalid API key · Fix external API key');
    expect(auth.code).toBe(1);
  });

  test('crash: a JS error on stderr, exit 1, no result line', async () => {
    const run = await play('claude-code', 'crash');
    const lines = jsonLines(run);
    expect(byType(lines, 'result')).toEqual([]);
    expect(run.stderr).toMatch(/^TypeError: /);
    expect(run.code).toBe(1);
  });

  test('--resume keeps the id of a session its home holds; --model is reported in init', async () => {
    const env = { CLAUDE_CONFIG_DIR: join(dir, 'claude-resume') };
    const scenario = { steps: [{ say: 'hello' }, { end: 'complete' }] };
    const first = jsonLines(
      await runSim({ harness: 'claude-code', scenario, dir, cwd: dir, argv: argvFor('claude-code', 'start'), env }),
    );
    const id = String(first[0]?.session_id);
    const argv = argvFor('claude-code', 'go on', { resume: id, model: 'claude-opus-4-1' });
    const lines = jsonLines(await runSim({ harness: 'claude-code', scenario, dir, cwd: dir, argv, env }));
    expectInit(lines[0], 'claude-opus-4-1');
    expect(lines[0]?.session_id).toBe(id);
    expect(lines.at(-1)?.session_id).toBe(id);
  });

  test('--resume of a session its home does not hold fails as Claude Code 2.1.332 does', async () => {
    const id = '3f1d7c9e-2b4a-4c6d-8e0f-1a2b3c4d5e6f';
    const env = { CLAUDE_CONFIG_DIR: join(dir, 'claude-empty') };
    const argv = argvFor('claude-code', 'go on', { resume: id });
    const run = await runSim({
      harness: 'claude-code',
      scenario: { steps: [{ end: 'complete' }] },
      dir,
      cwd: dir,
      argv,
      env,
    });
    expect(run.code).toBe(1);
    expect(jsonLines(run)).toEqual([
      expect.objectContaining({
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        num_turns: 0,
        session_id: id,
        errors: [`No conversation found with session ID: ${id}`],
      }),
    ]);
    expect(run.stderr).toContain(`No conversation found with session ID: ${id}`);
  });
});

describe.concurrent('codex endings', () => {
  function expectOpening(lines: Record<string, unknown>[]) {
    expect(lines[0]?.type).toBe('thread.started');
    expect(lines[0]?.thread_id).toMatch(UUID);
    expect(lines[1]).toEqual({ type: 'turn.started' });
  }

  /** The fatal `error` line and `turn.failed` with the same message; returns the message. */
  function expectFailed(run: CliRun): string {
    const lines = jsonLines(run);
    expectOpening(lines);
    const failed = lines.at(-1) as { type: string; error: { message: string } };
    expect(failed.type).toBe('turn.failed');
    expect(lines.at(-2)).toEqual({ type: 'error', message: failed.error.message });
    expect(byType(lines, 'turn.completed')).toEqual([]);
    expect(run.code).toBe(1);
    return failed.error.message;
  }

  test('complete: agent_message and turn.completed with usage, exit 0', async () => {
    const run = await play('codex', 'complete');
    const lines = jsonLines(run);
    expectOpening(lines);
    const messages = byType(lines, 'item.completed').map((line) => line.item as { id: string; type: string });
    expect(messages.map((item) => [item.id, item.type])).toEqual([
      ['item_0', 'agent_message'],
      ['item_1', 'agent_message'],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'turn.completed', usage: { cached_input_tokens: 0 } });
    expect(lines.at(-1)?.usage).toMatchObject({ output_tokens: expect.any(Number) });
    expect(run.stderr).toBe('Reading additional input from stdin...\n');
    expect(run.code).toBe(0);
  });

  test('quota (insufficient_quota and usage_limit): the exact messages, exit 1', async () => {
    expect(expectFailed(await play('codex', 'quota'))).toBe('Quota exceeded. Check your plan and billing details.');
    expect(expectFailed(await play('codex', { quota: 'usage_limit' }))).toMatch(
      /^You’ve hit your usage limit\. Upgrade to Pro \(https:\/\/chatgpt\.com\/explore\/pro\), visit https:\/\/chatgpt\.com\/settings\/usage to purchase more credits or try again at \d{1,2}:\d{2} (AM|PM)\.$/,
    );
  });

  test('rate_limit: Reconnecting n/5 lines, then exceeded retry limit, exit 1', async () => {
    const run = await play('codex', 'rate_limit');
    const message = expectFailed(run);
    expect(message).toMatch(/^exceeded retry limit, last status: 429 Too Many Requests, request id: req_\w+$/);
    const reconnects = byType(jsonLines(run), 'error').slice(0, -1);
    expect(reconnects.map((line) => (line.message as string).slice(0, 19))).toEqual(
      [1, 2, 3, 4, 5].map((n) => `Reconnecting... ${n}/5`),
    );
  });

  test('overloaded and auth: the capacity and 401 messages, exit 1', async () => {
    expect(expectFailed(await play('codex', 'overloaded'))).toBe(
      'Selected model is at capacity. Please try a different model.',
    );
    expect(expectFailed(await play('codex', 'auth'))).toMatch(/^unexpected status 401 Unauthorized: /);
  });

  test('crash: a Rust panic on stderr, exit 101, no turn line', async () => {
    const run = await play('codex', 'crash');
    const lines = jsonLines(run);
    expect(lines.filter((line) => String(line.type).startsWith('turn.') && line.type !== 'turn.started')).toEqual([]);
    expect(run.stderr).toMatch(/^thread 'main' panicked at /m);
    expect(run.code).toBe(101);
  });

  test('resume keeps the id of a thread its home holds', async () => {
    const env = { CODEX_HOME: join(dir, 'codex-resume') };
    const scenario = { steps: [{ say: 'hello' }, { end: 'complete' }] };
    const first = jsonLines(
      await runSim({ harness: 'codex', scenario, dir, cwd: dir, argv: argvFor('codex', 'start'), env }),
    );
    const id = String(first[0]?.thread_id);
    const argv = argvFor('codex', 'go on', { resume: id, model: 'gpt-5.5' });
    const lines = jsonLines(await runSim({ harness: 'codex', scenario, dir, cwd: dir, argv, env }));
    expect(lines[0]).toEqual({ type: 'thread.started', thread_id: id });
  });

  test('resume of a thread its home does not hold fails as Codex 0.171.0 does', async () => {
    const id = '01a2266e-646b-7c91-beca-0924b8984b6a';
    const env = { CODEX_HOME: join(dir, 'codex-empty') };
    const argv = argvFor('codex', 'go on', { resume: id });
    const run = await runSim({
      harness: 'codex',
      scenario: { steps: [{ end: 'complete' }] },
      dir,
      cwd: dir,
      argv,
      env,
    });
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([]);
    expect(run.stderr).toContain(`no rollout found for thread id ${id}`);
  });

  test('garbage lines are the only lines that are not JSON', async () => {
    const run = await runSim({
      harness: 'codex',
      scenario: { steps: [{ say: 'one' }, { garbage: 2 }, { say: 'two' }] },
      dir,
      cwd: dir,
      argv: argvFor('codex', 'go'),
    });
    const notJson = run.lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).toHaveLength(2);
    expect(run.lines).toHaveLength(8);
    expect(run.code).toBe(0);
  });
});

describe.concurrent('startup errors: one stderr line, exit 2', () => {
  const expectUsage = (run: CliRun, pattern: RegExp) => {
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(pattern);
  };

  test('HARMFLOW_SIM_AS missing or unknown', async () => {
    const run = await runCli(process.execPath, [SIM, '-p', 'x'], {
      cwd: dir,
      env: { HARMFLOW_SIM_AS: 'gemini', HARMFLOW_SIM_SCENARIO: join(dir, 'none.yaml') },
    });
    expectUsage(run, /^sim: HARMFLOW_SIM_AS must be one of claude-code, codex/);
  });

  test('HARMFLOW_SIM_SCENARIO missing or invalid', async () => {
    const env = { HARMFLOW_SIM_AS: 'claude-code', HARMFLOW_SIM_SCENARIO: '' };
    expectUsage(
      await runCli(process.execPath, [SIM, '-p', 'x'], { cwd: dir, env }),
      /HARMFLOW_SIM_SCENARIO is not set/,
    );
    const invalid = await runSim({
      harness: 'claude-code',
      scenario: { steps: [{ write: { path: '../outside', content: 'x' } }] },
      dir,
      cwd: dir,
      argv: ['-p', 'x'],
    });
    expectUsage(invalid, /steps\.0\.write\.path: must be a relative path inside the worktree/);
  });

  test('a command line sim cannot play', async () => {
    const scenario = { steps: [{ say: 'hi' }] };
    expectUsage(
      await runSim({ harness: 'codex', scenario, dir, cwd: dir, argv: ['--json', 'hi'] }),
      /no `exec` subcommand/,
    );
  });
});
