import { describe, expect, it } from 'vitest';
import { EventPayloads, type HarnessEvent } from '../../../src/events/schema.js';
import { codexAdapter } from '../../../src/harnesses/codex/index.js';
import { fixtureLines, parseLines } from '../replay.js';

const parseFixture = (name: string) => parseLines(codexAdapter, fixtureLines('codex', name));
const parseOne = (...lines: unknown[]) =>
  parseLines(
    codexAdapter,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))),
  );

const FIXTURES = [
  'success',
  'insufficient-quota',
  'usage-limit-plus',
  'usage-not-included',
  'rate-limit',
  'rate-limit-stream',
  'overloaded-503',
  'high-demand-500',
  'item-error-warning',
  'garbage',
];

const session = (sessionId: string): HarnessEvent => ({ type: 'session.started', data: { sessionId } });

/** The events of a failure: the fatal error line, then turn.failed. */
const failure = (message: string): HarnessEvent[] => [
  { type: 'harness.error', data: { message, fatal: false } },
  { type: 'harness.error', data: { message, fatal: true } },
  { type: 'result', data: { ok: false, message } },
];

const reconnects = (reason: (attempt: number) => string): HarnessEvent[] =>
  [1, 2, 3, 4, 5].flatMap((attempt): HarnessEvent[] => {
    const message = `Reconnecting... ${attempt}/5 (${reason(attempt)})`;
    return [
      { type: 'harness.error', data: { message, fatal: false } },
      { type: 'retry', data: { attempt, maxRetries: 5, message } },
    ];
  });

describe('codex parser on recorded runs', () => {
  it('maps a run with a command, a patch, a todo list and a final message', () => {
    const plan = (
      first: 'completed' | 'in_progress',
      second: 'completed' | 'in_progress' | 'pending',
    ): HarnessEvent => ({
      type: 'plan',
      data: {
        items: [
          { text: 'Create codex_shell.txt with a shell command', status: first },
          { text: 'Add codex_patch.txt with apply_patch', status: second },
        ],
      },
    });
    const command = "/bin/bash -lc 'echo created-by-codex-shell > codex_shell.txt && cat codex_shell.txt'";
    const changes = [{ path: '<lab>/ws/x-write-bypass/codex_patch.txt', kind: 'add' }];
    expect(parseFixture('success')).toEqual([
      session('01a2266e-646b-7c91-beca-0924b8984b6a'),
      plan('in_progress', 'pending'),
      {
        type: 'tool.call',
        data: {
          id: 'item_0',
          name: 'shell',
          input: { command },
          shell: 'echo created-by-codex-shell > codex_shell.txt && cat codex_shell.txt',
        },
      },
      { type: 'tool.result', data: { id: 'item_0', ok: true, exitCode: 0, output: 'created-by-codex-shell\n' } },
      plan('completed', 'in_progress'),
      // item_0 again, now a file_change: a second id so results pair with the right call.
      {
        type: 'tool.call',
        data: {
          id: 'item_0#2',
          name: 'apply_patch',
          input: { changes },
          files: ['<lab>/ws/x-write-bypass/codex_patch.txt'],
        },
      },
      { type: 'tool.result', data: { id: 'item_0#2', ok: true } },
      plan('completed', 'completed'),
      { type: 'message', data: { text: 'MOCK_FINAL: the tool ran and the file was written.' } },
      { type: 'usage', data: { inputTokens: 400, outputTokens: 40, cachedInputTokens: 0 } },
      { type: 'result', data: { ok: true, message: 'MOCK_FINAL: the tool ran and the file was written.' } },
    ]);
  });

  it('maps insufficient quota', () => {
    expect(parseFixture('insufficient-quota')).toEqual([
      session('019ac1d2-0b3e-7f41-8a52-6c7d8e9f0a11'),
      ...failure('Quota exceeded. Check your plan and billing details.'),
    ]);
  });

  it('maps a plan usage limit', () => {
    expect(parseFixture('usage-limit-plus')).toEqual([
      session('019ac1d2-1c4f-7a52-9b63-7d8e9f0a1b22'),
      ...failure(
        'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:31 AM.',
      ),
    ]);
  });

  it('maps usage not included', () => {
    expect(parseFixture('usage-not-included')).toEqual([
      session('019ac1d2-2d50-7b63-8c74-8e9f0a1b2c33'),
      ...failure('To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus.'),
    ]);
  });

  it('maps Reconnecting lines to retries, then the rate-limit failure', () => {
    expect(parseFixture('rate-limit')).toEqual([
      session('019ac1d2-3e61-7c74-9d85-9f0a1b2c3d44'),
      ...reconnects(
        (attempt) =>
          `exceeded retry limit, last status: 429 Too Many Requests, request id: req_7f3a9c1e2b4d6f0${attempt}`,
      ),
      ...failure('exceeded retry limit, last status: 429 Too Many Requests, request id: req_7f3a9c1e2b4d6f80'),
    ]);
  });

  it('maps a stream rate limit', () => {
    const message =
      'rate limit exceeded: Rate limit reached for gpt-5 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 1.5s.';
    expect(parseFixture('rate-limit-stream')).toEqual([
      session('019ac1d2-4f72-7d85-8e96-0a1b2c3d4e55'),
      ...reconnects(() => message),
      ...failure(message),
    ]);
  });

  it('maps a 503 overload', () => {
    expect(parseFixture('overloaded-503')).toEqual([
      session('019ac1d2-5083-7e96-9fa7-1b2c3d4e5f66'),
      ...failure('Selected model is at capacity. Please try a different model.'),
    ]);
  });

  it('maps a 500 after reconnects', () => {
    const message = 'We’re currently experiencing high demand, which may cause temporary errors.';
    expect(parseFixture('high-demand-500')).toEqual([
      session('019ac1d2-6194-7fa7-80b8-2c3d4e5f6a77'),
      ...reconnects(() => message),
      ...failure(message),
    ]);
  });

  it('maps error items to warnings and ignores reasoning', () => {
    expect(parseFixture('item-error-warning')).toEqual([
      session('019ac1d2-72a5-70b8-91c9-3d4e5f6a7b88'),
      {
        type: 'warning',
        data: {
          message:
            'Model metadata for `gpt-5-mock` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
        },
      },
      {
        type: 'warning',
        data: {
          message:
            'This session was recorded with model `gpt-5.5` but is resuming with `gpt-5-mock`. Consider switching back to `gpt-5.5` as it may affect Codex performance.',
        },
      },
      { type: 'message', data: { text: 'MOCK_TEXT: hello from the mock provider.' } },
      { type: 'usage', data: { inputTokens: 380, outputTokens: 12, cachedInputTokens: 128 } },
      { type: 'result', data: { ok: true, message: 'MOCK_TEXT: hello from the mock provider.' } },
    ]);
  });

  it('keeps unknown and malformed lines as raw events', () => {
    const lines = fixtureLines('codex', 'garbage');
    expect(parseLines(codexAdapter, lines)).toEqual(
      lines.map((line) => ({ type: 'raw', data: { stream: 'stdout', line } })),
    );
  });

  it('produces only events that satisfy the event schema', () => {
    for (const name of FIXTURES) {
      for (const event of parseFixture(name)) {
        expect(EventPayloads[event.type].safeParse(event.data).success, `${name}: ${event.type}`).toBe(true);
      }
    }
  });
});

describe('codex parser on single lines', () => {
  const item = (phase: string, body: Record<string, unknown>) => ({ type: `item.${phase}`, item: body });
  const command = (id: string, text: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: 'command_execution',
    command: text,
    aggregated_output: '',
    exit_code: null,
    status: 'in_progress',
    ...extra,
  });

  it('emits the call first for a command completed without a start', () => {
    expect(
      parseOne(
        item(
          'completed',
          command('item_3', 'bash -lc "npm test"', { aggregated_output: 'boom', exit_code: 1, status: 'failed' }),
        ),
      ),
    ).toEqual([
      {
        type: 'tool.call',
        data: { id: 'item_3', name: 'shell', input: { command: 'bash -lc "npm test"' }, shell: 'npm test' },
      },
      { type: 'tool.result', data: { id: 'item_3', ok: false, exitCode: 1, output: 'boom' } },
    ]);
  });

  it('gives a reused id of the same type a fresh id once the first item completed', () => {
    const events = parseOne(
      item('started', command('item_0', 'ls')),
      item('completed', command('item_0', 'ls', { exit_code: 0, status: 'completed' })),
      item('started', command('item_0', 'pwd')),
      item('updated', command('item_0', 'pwd')),
      item('completed', command('item_0', 'pwd', { exit_code: 0, status: 'completed' })),
    );
    expect(
      events.map((event) =>
        event.type === 'tool.call' || event.type === 'tool.result' ? `${event.type} ${event.data.id}` : event.type,
      ),
    ).toEqual(['tool.call item_0', 'tool.result item_0', 'tool.call item_0#2', 'tool.result item_0#2']);
  });

  it('marks a failed patch as not ok', () => {
    const patch = { id: 'item_5', type: 'file_change', changes: [{ path: 'a.txt', kind: 'update' }], status: 'failed' };
    expect(parseOne(item('completed', patch))).toEqual([
      {
        type: 'tool.call',
        data: { id: 'item_5', name: 'apply_patch', input: { changes: patch.changes }, files: ['a.txt'] },
      },
      { type: 'tool.result', data: { id: 'item_5', ok: false } },
    ]);
  });

  it('maps MCP tool calls', () => {
    const call = {
      id: 'item_6',
      type: 'mcp_tool_call',
      server: 'docs',
      tool: 'search',
      arguments: { q: 'x' },
      status: 'in_progress',
    };
    expect(
      parseOne(
        item('started', call),
        item('completed', {
          ...call,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'found' }], structured_content: null },
        }),
        item('completed', { ...call, id: 'item_7', status: 'failed', error: { message: 'server down' } }),
      ),
    ).toEqual([
      { type: 'tool.call', data: { id: 'item_6', name: 'mcp__docs__search', input: { q: 'x' } } },
      { type: 'tool.result', data: { id: 'item_6', ok: true, output: 'found' } },
      { type: 'tool.call', data: { id: 'item_7', name: 'mcp__docs__search', input: { q: 'x' } } },
      { type: 'tool.result', data: { id: 'item_7', ok: false, output: 'server down' } },
    ]);
  });

  it('maps a web search to a tool call and result', () => {
    const search = { id: 'item_8', type: 'web_search', query: 'zod 4 looseObject' };
    expect(parseOne(item('started', search), item('completed', search))).toEqual([
      { type: 'tool.call', data: { id: 'item_8', name: 'web_search', input: { query: 'zod 4 looseObject' } } },
      { type: 'tool.result', data: { id: 'item_8', ok: true } },
    ]);
  });

  it('clips long command output', () => {
    const output = `${'y'.repeat(9000)}END`;
    const [, result] = parseOne(
      item('completed', command('item_1', 'cat big', { aggregated_output: output, exit_code: 0 })),
    );
    expect(result?.type === 'tool.result' && result.data.truncated).toBe(true);
    expect(result?.type === 'tool.result' && result.data.output?.length).toBeLessThanOrEqual(4000);
    expect(result?.type === 'tool.result' && result.data.output?.endsWith('END')).toBe(true);
  });

  it('reports an unnumbered Reconnecting line as a retry without counts', () => {
    const message = 'Reconnecting... waiting for network';
    expect(parseOne({ type: 'error', message })).toEqual([
      { type: 'harness.error', data: { message, fatal: false } },
      { type: 'retry', data: { message } },
    ]);
  });

  it('falls back to the last error line when turn.failed has no message', () => {
    expect(parseOne({ type: 'error', message: 'boom' }, { type: 'turn.failed', error: {} })).toEqual([
      { type: 'harness.error', data: { message: 'boom', fatal: false } },
      { type: 'harness.error', data: { message: 'boom', fatal: true } },
      { type: 'result', data: { ok: false, message: 'boom' } },
    ]);
  });

  it('records nothing for turn.started, reasoning, unfinished agent messages and blank lines', () => {
    expect(
      parseOne(
        { type: 'turn.started' },
        item('started', { id: 'item_0', type: 'reasoning', text: 'thinking' }),
        item('started', { id: 'item_1', type: 'agent_message', text: 'partial' }),
        '',
      ),
    ).toEqual([]);
  });

  it('never throws on arbitrary input', () => {
    const parse = codexAdapter.createParser();
    const inputs = ['{', '"', '{"type":"item.completed","item":null}', '{"type":"error"}', 'z'.repeat(100_000)];
    for (const input of inputs) expect(() => parse(input)).not.toThrow();
  });
});
