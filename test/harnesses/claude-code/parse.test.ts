import { describe, expect, it } from 'vitest';
import { EventPayloads, type HarnessEvent } from '../../../src/events/schema.js';
import { claudeCodeAdapter } from '../../../src/harnesses/claude-code/index.js';
import { fixtureLines, parseLines } from '../replay.js';

const parseFixture = (name: string) => parseLines(claudeCodeAdapter, fixtureLines('claude-code', name));
const parseOne = (...lines: unknown[]) =>
  parseLines(
    claudeCodeAdapter,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))),
  );

const BASH_COMMAND = 'echo created-by-claude-bash > claude_bash.txt && cat claude_bash.txt';
const BASH_INPUT = { command: BASH_COMMAND, description: 'Create a file' };
const FINAL = 'MOCK_FINAL: the tool ran and the file was written.';
const DENIED =
  "Output redirection to '<lab>/ws/c1/claude_bash.txt' needs approval. Claude requested permissions to use Bash, but you haven't granted it yet.";

/** The events every API-error fixture ends with: the synthetic line, zero usage, the error result. */
function apiError(text: string, status: number, durationMs: number): HarnessEvent[] {
  return [
    { type: 'harness.error', data: { message: text, fatal: false } },
    { type: 'usage', data: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 } },
    { type: 'result', data: { ok: false, message: text, apiErrorStatus: status, numTurns: 1, durationMs } },
  ];
}

const retries = (reason: string, status: number): HarnessEvent[] => [
  { type: 'retry', data: { attempt: 1, maxRetries: 2, delayMs: 1055, reason, message: `HTTP ${status}` } },
  { type: 'retry', data: { attempt: 2, maxRetries: 2, delayMs: 1205, reason, message: `HTTP ${status}` } },
];

const session = (sessionId: string, model = 'claude-opus-5-5'): HarnessEvent => ({
  type: 'session.started',
  data: { sessionId, model },
});

describe('claude-code parser on recorded runs', () => {
  it('maps a successful Bash tool run', () => {
    expect(parseFixture('success-tool-use')).toEqual([
      session('ed5489e4-0c2f-4b8e-9d61-5a7f3e2b1c90'),
      {
        type: 'tool.call',
        data: { id: 'toolu_01Bq4mock0000000000000001', name: 'Bash', input: BASH_INPUT, shell: BASH_COMMAND },
      },
      {
        type: 'tool.result',
        data: { id: 'toolu_01Bq4mock0000000000000001', ok: true, output: 'created-by-claude-bash' },
      },
      { type: 'message', data: { text: FINAL } },
      { type: 'usage', data: { inputTokens: 240, outputTokens: 30, cachedInputTokens: 0, costUsd: 0.00156 } },
      { type: 'result', data: { ok: true, message: FINAL, numTurns: 2, durationMs: 160 } },
    ]);
  });

  it('maps a permission denial to a warning and a failed tool result', () => {
    expect(parseFixture('permission-denied')).toEqual([
      session('295d1780-45f3-4fd9-b6f7-1865a70149cb'),
      {
        type: 'tool.call',
        data: { id: 'toolu_01Bq4mock0000000000000011', name: 'Bash', input: BASH_INPUT, shell: BASH_COMMAND },
      },
      { type: 'warning', data: { message: `Bash: ${DENIED}` } },
      { type: 'tool.result', data: { id: 'toolu_01Bq4mock0000000000000011', ok: false, output: DENIED } },
      { type: 'message', data: { text: FINAL } },
      { type: 'usage', data: { inputTokens: 260, outputTokens: 30, cachedInputTokens: 0, costUsd: 0.00166 } },
      { type: 'result', data: { ok: true, message: FINAL, numTurns: 2, durationMs: 171 } },
    ]);
  });

  it('maps api_retry lines and a 429 API error', () => {
    const text =
      'API Error: Request rejected (429) · This request would exceed the rate limit for your organization (mock) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.';
    expect(parseFixture('rate-limit-429')).toEqual([
      session('a3c1e0f2-7b6d-4e5f-9a8b-1c2d3e4f5a60'),
      ...retries('rate_limit', 429),
      ...apiError(text, 429, 2903),
    ]);
  });

  it('maps a 529 overload', () => {
    const text =
      'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18791).';
    expect(parseFixture('overloaded-529')).toEqual([
      session('b4d2f1a3-8c7e-4f60-8b9c-2d3e4f5a6b71'),
      ...retries('overloaded', 529),
      ...apiError(text, 529, 2957),
    ]);
  });

  it('maps a 401', () => {
    expect(parseFixture('auth-401')).toEqual([
      session('c5e3a2b4-9d8f-4a71-9c0d-3e4f5a6b7c82'),
      ...retries('authentication_failed', 401),
      ...apiError('Invalid API key · Fix external API key', 401, 2871),
    ]);
  });

  it('maps a credit balance error', () => {
    expect(parseFixture('credit-balance')).toEqual([
      session('d6f4b3c5-0e9a-4b82-8d1e-4f5a6b7c8d93'),
      ...apiError('Credit balance is too low', 400, 350),
    ]);
  });

  it('maps a rejected 5-hour subscription window', () => {
    expect(parseFixture('subscription-5h')).toEqual([
      session('e7a5c4d6-1f0b-4c93-9e2f-5a6b7c8d9ea4', 'claude-sonnet-5-5'),
      {
        type: 'rate_limit',
        data: { status: 'rejected', resetsAt: '2026-11-29T09:40:54.000Z', window: 'five_hour', utilization: 1 },
      },
      ...apiError("You've hit your 5-hour limit · resets 9:40am (UTC)", 429, 402),
    ]);
  });

  it('maps a rejected weekly subscription window', () => {
    expect(parseFixture('weekly-limit')).toEqual([
      session('f8b6d5e7-2a1c-4da4-8f3a-6b7c8d9eafb5', 'claude-sonnet-5-5'),
      {
        type: 'rate_limit',
        data: { status: 'rejected', resetsAt: '2026-11-30T09:41:54.000Z', window: 'seven_day', utilization: 1 },
      },
      ...apiError("You've hit your weekly limit · resets Nov 30, 9:41am (UTC)", 429, 398),
    ]);
  });

  it('maps max turns to a failed result with the errors as message', () => {
    expect(parseFixture('max-turns')).toEqual([
      session('0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d'),
      {
        type: 'tool.call',
        data: { id: 'toolu_01Bq4mock0000000000000021', name: 'Bash', input: BASH_INPUT, shell: BASH_COMMAND },
      },
      {
        type: 'tool.result',
        data: { id: 'toolu_01Bq4mock0000000000000021', ok: true, output: 'created-by-claude-bash' },
      },
      { type: 'usage', data: { inputTokens: 120, outputTokens: 20, cachedInputTokens: 0, costUsd: 0.00078 } },
      {
        type: 'result',
        data: { ok: false, message: 'Reached maximum number of turns (1)', numTurns: 2, durationMs: 131 },
      },
    ]);
  });

  it('takes the window status allowed_warning over the summary status allowed', () => {
    expect(parseFixture('allowed-warning')).toEqual([
      session('1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e', 'claude-sonnet-5-5'),
      {
        type: 'rate_limit',
        data: {
          status: 'allowed_warning',
          resetsAt: '2026-11-29T09:40:54.000Z',
          window: 'five_hour',
          utilization: 0.93,
        },
      },
      { type: 'message', data: { text: 'MOCK_TEXT: hello from the mock provider.' } },
      { type: 'usage', data: { inputTokens: 100, outputTokens: 12, cachedInputTokens: 80, costUsd: 0.00048 } },
      {
        type: 'result',
        data: { ok: true, message: 'MOCK_TEXT: hello from the mock provider.', numTurns: 1, durationMs: 92 },
      },
    ]);
  });

  it('keeps unknown and malformed lines as raw events and ignores stream_event', () => {
    const lines = fixtureLines('claude-code', 'garbage');
    const events = parseLines(claudeCodeAdapter, lines);
    const kept = lines.filter((line) => !line.startsWith('{"type":"stream_event"'));
    expect(kept).toHaveLength(lines.length - 1);
    expect(events).toEqual(kept.map((line) => ({ type: 'raw', data: { stream: 'stdout', line } })));
  });

  it('produces only events that satisfy the event schema', () => {
    const names = [
      'success-tool-use',
      'permission-denied',
      'rate-limit-429',
      'overloaded-529',
      'auth-401',
      'credit-balance',
      'subscription-5h',
      'weekly-limit',
      'max-turns',
      'allowed-warning',
      'garbage',
    ];
    for (const name of names) {
      for (const event of parseFixture(name)) {
        expect(EventPayloads[event.type].safeParse(event.data).success, `${name}: ${event.type}`).toBe(true);
      }
    }
  });
});

describe('claude-code parser on single lines', () => {
  const assistant = (...content: unknown[]) => ({
    type: 'assistant',
    message: { model: 'claude-opus-5-5', content },
    session_id: 's',
  });
  const toolResult = (id: string, content: unknown, isError = false) => ({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
  });

  it('maps TodoWrite to a tool call and a plan', () => {
    const todos = [
      { content: 'Write the parser', status: 'completed', activeForm: 'Writing the parser' },
      { content: 'Test it', status: 'in_progress', activeForm: 'Testing it' },
      { content: 'Ship it', status: 'pending', activeForm: 'Shipping it' },
    ];
    expect(parseOne(assistant({ type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos } }))).toEqual([
      { type: 'tool.call', data: { id: 't1', name: 'TodoWrite', input: { todos } } },
      {
        type: 'plan',
        data: {
          items: [
            { text: 'Write the parser', status: 'completed' },
            { text: 'Test it', status: 'in_progress' },
            { text: 'Ship it', status: 'pending' },
          ],
        },
      },
    ]);
  });

  it('names the files of Write, Edit, MultiEdit and NotebookEdit', () => {
    const events = parseOne(
      assistant(
        { type: 'tool_use', id: 'w', name: 'Write', input: { file_path: '/w/a.ts', content: 'x' } },
        { type: 'tool_use', id: 'e', name: 'Edit', input: { file_path: '/w/b.ts', old_string: 'a', new_string: 'b' } },
        { type: 'tool_use', id: 'm', name: 'MultiEdit', input: { file_path: '/w/c.ts', edits: [] } },
        { type: 'tool_use', id: 'n', name: 'NotebookEdit', input: { notebook_path: '/w/d.ipynb', new_source: '' } },
        { type: 'tool_use', id: 'r', name: 'Read', input: { file_path: '/w/e.ts' } },
      ),
    );
    expect(
      events.map((event) => (event.type === 'tool.call' ? [event.data.id, event.data.files] : event.type)),
    ).toEqual([
      ['w', ['/w/a.ts']],
      ['e', ['/w/b.ts']],
      ['m', ['/w/c.ts']],
      ['n', ['/w/d.ipynb']],
      ['r', undefined],
    ]);
  });

  it('reads the exit code of a failed Bash command, and only of Bash', () => {
    const events = parseOne(
      assistant(
        { type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'npm test' } },
        { type: 'tool_use', id: 'g', name: 'Grep', input: { pattern: 'x' } },
      ),
      toolResult('b', 'Exit code 1\n1 failed, 3 passed', true),
      toolResult('g', 'Exit code 2 is what the file says', false),
    );
    expect(events.slice(2)).toEqual([
      { type: 'tool.result', data: { id: 'b', ok: false, exitCode: 1, output: 'Exit code 1\n1 failed, 3 passed' } },
      { type: 'tool.result', data: { id: 'g', ok: true, output: 'Exit code 2 is what the file says' } },
    ]);
  });

  it('joins the text parts of a tool result and skips the others', () => {
    const content = [
      { type: 'text', text: 'first' },
      { type: 'image', source: { type: 'base64', data: 'AAAA' } },
      { type: 'text', text: 'second' },
    ];
    expect(parseOne(toolResult('x', content))).toEqual([
      { type: 'tool.result', data: { id: 'x', ok: true, output: 'first\nsecond' } },
    ]);
  });

  it('clips a long output to 4000 characters, keeping both ends', () => {
    const long = `HEAD${'x'.repeat(10_000)}TAIL`;
    const [event] = parseOne(toolResult('x', long));
    expect(event?.type).toBe('tool.result');
    if (event?.type !== 'tool.result') return;
    expect(event.data.truncated).toBe(true);
    expect(event.data.output?.length).toBeLessThanOrEqual(4000);
    expect(event.data.output?.startsWith('HEAD')).toBe(true);
    expect(event.data.output?.endsWith('TAIL')).toBe(true);
    expect(event.data.output).toContain('characters cut');
  });

  it('reports a plain allowed rate-limit status', () => {
    expect(
      parseOne({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'allowed', isUsingOverage: false },
        session_id: 's',
      }),
    ).toEqual([{ type: 'rate_limit', data: { status: 'allowed' } }]);
  });

  it('picks the most severe window when no rateLimitType names one', () => {
    const info = {
      status: 'allowed',
      unifiedWindows: {
        five_hour: { utilization: 0.2, resetsAt: 1795945254, status: 'allowed' },
        seven_day: { utilization: 0.95, resetsAt: 1796031714, status: 'allowed_warning' },
      },
    };
    expect(parseOne({ type: 'rate_limit_event', rate_limit_info: info })).toEqual([
      {
        type: 'rate_limit',
        data: {
          status: 'allowed_warning',
          resetsAt: '2026-11-30T09:41:54.000Z',
          window: 'seven_day',
          utilization: 0.95,
        },
      },
    ]);
  });

  it('reads only the window rateLimitType names', () => {
    const info = {
      status: 'rejected',
      resetsAt: 1796031714,
      rateLimitType: 'seven_day_opus',
      unifiedWindows: { five_hour: { utilization: 0.5, resetsAt: 1795945254, status: 'allowed_warning' } },
    };
    expect(parseOne({ type: 'rate_limit_event', rate_limit_info: info })).toEqual([
      {
        type: 'rate_limit',
        data: { status: 'rejected', resetsAt: '2026-11-30T09:41:54.000Z', window: 'seven_day_opus' },
      },
    ]);
  });

  it('records nothing for thinking blocks, user prompts and blank lines', () => {
    expect(
      parseOne(
        assistant({ type: 'thinking', thinking: 'hmm', signature: 'sig' }),
        { type: 'user', message: { role: 'user', content: 'do the thing' } },
        '',
        '   ',
      ),
    ).toEqual([]);
  });

  it('keeps an unknown system subtype as raw', () => {
    const line = JSON.stringify({ type: 'system', subtype: 'hook_response', hook_name: 'PreToolUse:Bash' });
    expect(parseOne(line)).toEqual([{ type: 'raw', data: { stream: 'stdout', line } }]);
  });

  it('never throws on arbitrary input', () => {
    const parse = claudeCodeAdapter.createParser();
    const inputs = ['{', '}', '"', '\u0000', '{"type":null}', '{"type":"result","usage":7}', 'x'.repeat(100_000)];
    for (const input of inputs) expect(() => parse(input)).not.toThrow();
  });
});
