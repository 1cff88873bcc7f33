import { describe, expect, it } from 'vitest';
import { EventPayloads, type HarnessEvent } from '../../../src/events/schema.js';
import { opencodeAdapter } from '../../../src/harnesses/opencode/index.js';
import { fixtureLines, parseLines } from '../replay.js';

const parseFixture = (name: string) => parseLines(opencodeAdapter, fixtureLines('opencode', name));
const parseOne = (...lines: unknown[]) =>
  parseLines(
    opencodeAdapter,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))),
  );

const FIXTURES = [
  'success',
  'todo',
  'bash-exit-code',
  'apply-patch',
  'permission-rejected',
  'resume',
  'insufficient-quota',
  'rate-limit',
  'server-error-500',
  'auth-401',
  'unknown-model',
  'free-usage',
  'go-usage-limit',
  'garbage',
];

const session = (sessionId: string): HarnessEvent => ({ type: 'session.started', data: { sessionId } });
/** The mock server's usage of every step, as OpenCode reports it. */
const STEP_USAGE: HarnessEvent = {
  type: 'usage',
  data: { inputTokens: 7555, outputTokens: 7, cachedInputTokens: 128, costUsd: 0 },
};
const failure = (message: string, apiErrorStatus?: number): HarnessEvent[] => [
  { type: 'harness.error', data: { message, fatal: true } },
  { type: 'result', data: { ok: false, message, ...(apiErrorStatus !== undefined && { apiErrorStatus }) } },
];

describe('opencode parser on recorded runs', () => {
  it('maps a write, the final text and the usage of each step', () => {
    expect(parseFixture('success')).toEqual([
      session('ses_dd8dc402affef5h5qXX6IAQzhy'),
      {
        type: 'tool.call',
        data: {
          id: 'call_mock_2',
          name: 'write',
          input: { filePath: 'hello.txt', content: 'hello from mock\n' },
          files: ['hello.txt'],
        },
      },
      { type: 'tool.result', data: { id: 'call_mock_2', ok: true, output: 'Wrote file successfully.' } },
      STEP_USAGE,
      { type: 'message', data: { text: 'Done: tool finished.' } },
      STEP_USAGE,
    ]);
  });

  it('reports a todowrite as a plan between its call and result', () => {
    const events = parseFixture('todo');
    expect(events.map((event) => event.type)).toEqual([
      'session.started',
      'tool.call',
      'plan',
      'tool.result',
      'usage',
      'message',
      'usage',
    ]);
    expect(events[2]).toEqual({
      type: 'plan',
      data: {
        items: [
          { text: 'Write hello.txt', status: 'completed' },
          { text: 'Run tests', status: 'in_progress' },
          { text: 'Open PR', status: 'pending' },
        ],
      },
    });
  });

  it('reads a bash command that exited non-zero as a failed call with its exit code', () => {
    const events = parseFixture('bash-exit-code');
    expect(events.slice(1, 3)).toEqual([
      {
        type: 'tool.call',
        data: {
          id: 'call_mock_5',
          name: 'bash',
          input: { command: 'exit 3', description: 'fail' },
          shell: 'exit 3',
        },
      },
      { type: 'tool.result', data: { id: 'call_mock_5', ok: false, exitCode: 3, output: '(no output)' } },
    ]);
  });

  it('names the files of an apply_patch', () => {
    const call = parseFixture('apply-patch').find((event) => event.type === 'tool.call');
    expect(call?.type === 'tool.call' && call.data.name).toBe('apply_patch');
    expect(call?.type === 'tool.call' && call.data.files).toEqual(['added.txt', 'hello.txt']);
  });

  it('maps a rejected permission to a failed call with the rejection', () => {
    expect(parseFixture('permission-rejected')).toEqual([
      session('ses_dd8e2dc0fffeNkUHgnvIdjTh2O'),
      {
        type: 'tool.call',
        data: {
          id: 'call_mock_3',
          name: 'write',
          input: { filePath: '<lab>/outside.txt', content: 'outside\n' },
          files: ['<lab>/outside.txt'],
        },
      },
      {
        type: 'tool.result',
        data: { id: 'call_mock_3', ok: false, output: 'The user rejected permission to use this specific tool call.' },
      },
      STEP_USAGE,
    ]);
  });

  it('reports the resumed session again', () => {
    expect(parseFixture('resume')[0]).toEqual(session('ses_dd8da8062ffemu0O8q99NH0wx1'));
  });

  it('maps insufficient_quota to a rejected limit, with the code beside the message', () => {
    const message =
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors. (insufficient_quota)';
    expect(parseFixture('insufficient-quota')).toEqual([
      session('ses_dd8e1bb30ffe8zPZZ4Pqg8sCTT'),
      { type: 'rate_limit', data: { status: 'rejected' } },
      ...failure(message, 429),
    ]);
  });

  it('maps OpenCode plan limits to rejected limits that reset after retry-after', () => {
    expect(parseFixture('free-usage')).toEqual([
      session('ses_dd8dbc27affec3RvNCggELCUQn'),
      { type: 'rate_limit', data: { status: 'rejected', resetsAt: '2026-11-29T11:50:32.778Z' } },
      ...failure('Rate limit exceeded. Please try again later. (FreeUsageLimitError)', 429),
    ]);
    expect(parseFixture('go-usage-limit')).toEqual([
      session('ses_dd8df3a7dffek3qBnFT2HkqRZp'),
      { type: 'rate_limit', data: { status: 'rejected', window: '5 hour', resetsAt: '2026-11-29T11:46:43.022Z' } },
      ...failure(
        '5-hour usage limit reached. Resets in 3hr 12min. To continue using this model now, enable usage from your available balance: https://opencode.ai/workspace/wrk_mock/go (GoUsageLimitError)',
        429,
      ),
    ]);
  });

  it('maps other API errors to a failed result with their status', () => {
    expect(parseFixture('rate-limit')).toEqual([
      session('ses_dd8dbfbddffeARZiN8dZVkGgLP'),
      ...failure(
        'Rate limit reached for mock-model in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2s.',
        429,
      ),
    ]);
    expect(parseFixture('server-error-500')).toEqual([
      session('ses_dd8d9e101ffexeyhvzaFB0i0oU'),
      ...failure('The server had an error while processing your request. Sorry about that!', 500),
    ]);
    expect(parseFixture('auth-401')).toEqual([
      session('ses_dd8dbc28cffedsSHruPCpZ7Dg6'),
      ...failure(
        'Incorrect API key provided: dummy. You can find your API key at https://platform.openai.com/account/api-keys.',
        401,
      ),
    ]);
    expect(parseFixture('unknown-model')).toEqual([
      session('ses_dd8db0ccaffeE6UKbnll5Yw2tI'),
      ...failure('Unexpected server error. Check server logs for details.'),
    ]);
  });

  it('keeps unknown and malformed lines as raw events', () => {
    const lines = fixtureLines('opencode', 'garbage');
    expect(parseLines(opencodeAdapter, lines)).toEqual(
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

describe('opencode parser on single lines', () => {
  const tool = (name: string, state: Record<string, unknown>, callID = 'call_1') => ({
    type: 'tool_use',
    part: { type: 'tool', tool: name, callID, id: 'prt_1', state },
  });

  it('reports the session once, on the first line that names it, even an unknown one', () => {
    const unknown = { type: 'session.compacted', sessionID: 'ses_a' };
    expect(parseOne(unknown, { type: 'step_start', sessionID: 'ses_a' })).toEqual([
      session('ses_a'),
      { type: 'raw', data: { stream: 'stdout', line: JSON.stringify(unknown) } },
    ]);
  });

  it('records nothing for step_start, reasoning and blank lines', () => {
    expect(
      parseOne({ type: 'step_start', part: {} }, { type: 'reasoning', part: { text: 'thinking' } }, '', '  '),
    ).toEqual([]);
  });

  it('takes the part id when a tool part has no callID, and keeps a part with neither raw', () => {
    const withoutCall = { type: 'tool_use', part: { tool: 'read', id: 'prt_9', state: { status: 'completed' } } };
    const withNeither = { type: 'tool_use', part: { tool: 'read', state: { status: 'completed' } } };
    expect(parseOne(withoutCall, withNeither)).toEqual([
      { type: 'tool.call', data: { id: 'prt_9', name: 'read', input: {} } },
      { type: 'tool.result', data: { id: 'prt_9', ok: true } },
      { type: 'raw', data: { stream: 'stdout', line: JSON.stringify(withNeither) } },
    ]);
  });

  it('names the file of an edit and drops repeated or cancelled-only plan changes', () => {
    const todos = (status: string) => ({ todos: [{ content: 'Fix it', status, priority: 'high', id: '1' }] });
    const events = parseOne(
      tool('edit', { status: 'completed', input: { filePath: 'src/a.ts', oldString: 'a', newString: 'b' } }),
      tool('todowrite', { status: 'completed', input: todos('in_progress') }, 'call_2'),
      tool('todowrite', { status: 'completed', input: todos('in_progress') }, 'call_3'),
      tool('todowrite', { status: 'completed', input: todos('cancelled') }, 'call_4'),
      tool('todowrite', { status: 'completed', input: todos('blocked') }, 'call_5'),
      tool('todowrite', { status: 'completed', input: todos('constructor') }, 'call_6'),
    );
    expect(events[0]).toMatchObject({ type: 'tool.call', data: { name: 'edit', files: ['src/a.ts'] } });
    expect(events.filter((event) => event.type === 'plan')).toEqual([
      { type: 'plan', data: { items: [{ text: 'Fix it', status: 'in_progress' }] } },
      { type: 'plan', data: { items: [{ text: 'Fix it', status: 'completed' }] } },
      { type: 'plan', data: { items: [{ text: 'Fix it', status: 'pending' }] } },
    ]);
  });

  it('lists each file of a patch once, moves included', () => {
    const patchText = [
      '*** Begin Patch',
      '*** Update File: a.ts',
      '*** Move to: b.ts',
      '@@',
      '-x',
      '+y',
      '*** Delete File: c.ts',
      '*** Update File: a.ts',
      '*** End Patch',
    ].join('\n');
    const [call] = parseOne(tool('apply_patch', { status: 'completed', input: { patchText } }));
    expect(call?.type === 'tool.call' && call.data.files).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });

  it('clips long tool output', () => {
    const output = `${'y'.repeat(9000)}END`;
    const [, result] = parseOne(tool('bash', { status: 'completed', input: { command: 'cat big' }, output }));
    expect(result?.type === 'tool.result' && result.data.truncated).toBe(true);
    expect(result?.type === 'tool.result' && result.data.output?.length).toBeLessThanOrEqual(4000);
    expect(result?.type === 'tool.result' && result.data.output?.endsWith('END')).toBe(true);
  });

  it('reads retry-after given as an HTTP date, and leaves a bad one out', () => {
    const error = (retryAfter: string) => ({
      type: 'error',
      timestamp: 1_795_952_700_000,
      error: {
        name: 'APIError',
        data: {
          message: 'Quota exceeded. Check your plan and billing details.',
          statusCode: 429,
          responseHeaders: { 'retry-after': retryAfter },
          responseBody: '{"error":{"code":"insufficient_quota"}}',
        },
      },
    });
    const limits = parseOne(error('Sun, 29 Nov 2026 12:00:00 GMT'), error('soon')).filter(
      (event) => event.type === 'rate_limit',
    );
    expect(limits).toEqual([
      { type: 'rate_limit', data: { status: 'rejected', resetsAt: '2026-11-29T12:00:00.000Z' } },
      { type: 'rate_limit', data: { status: 'rejected' } },
    ]);
  });

  it('falls back to the error name when an error has no message', () => {
    expect(parseOne({ type: 'error', error: { name: 'MessageAbortedError' } })).toEqual(failure('MessageAbortedError'));
  });

  it('never throws on arbitrary input', () => {
    const parse = opencodeAdapter.createParser();
    const inputs = [
      '{',
      '"',
      '{"type":"tool_use","part":null}',
      '{"type":"error","error":{"data":{"responseBody":"{"}}}',
      '{"type":"step_finish","part":{"tokens":"many"}}',
      'z'.repeat(100_000),
    ];
    for (const input of inputs) expect(() => parse(input)).not.toThrow();
  });
});
