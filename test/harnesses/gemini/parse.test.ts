import { describe, expect, it } from 'vitest';
import { EventPayloads, type HarnessEvent } from '../../../src/events/schema.js';
import { geminiAdapter } from '../../../src/harnesses/gemini/index.js';
import { fixtureLines, parseLines } from '../replay.js';

const parseFixture = (name: string) => parseLines(geminiAdapter, fixtureLines('gemini', name));
const parseOne = (...lines: unknown[]) =>
  parseLines(
    geminiAdapter,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))),
  );

const session = (sessionId: string, model = 'gemini-2.5-pro'): HarnessEvent => ({
  type: 'session.started',
  data: { sessionId, model },
});
const text = (content: string) => ({ type: 'message', role: 'assistant', content, delta: true });
const init = { type: 'init', session_id: 's-1', model: 'gemini-2.5-pro' };
const shellCall = (id: string, command: string) => ({
  type: 'tool_use',
  tool_name: 'run_shell_command',
  tool_id: id,
  parameters: { command, description: 'run it' },
});
const toolResult = (id: string, status: string, output?: string) => ({
  type: 'tool_result',
  tool_id: id,
  status,
  ...(output !== undefined && { output }),
});

/** Every API-error fixture: the session, zero usage, and the error result with Gemini's message. */
function apiError(sessionId: string, message: string, model = 'gemini-2.5-pro'): HarnessEvent[] {
  return [
    session(sessionId, model),
    { type: 'usage', data: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } },
    { type: 'result', data: { ok: false, message, durationMs: 0 } },
  ];
}

const WRITE_ID = 'write_file__write_file_1795952278996_0';
const TODOS_1 = 'write_todos__write_todos_1795952312845_0';
const TODOS_2 = 'write_todos__write_todos_1795952313356_0';
const SHELL_ID = 'run_shell_command__run_shell_command_1795952313211_0';
const RATE_LIMIT_ADVICE =
  '\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method';

describe('gemini parser on recorded runs', () => {
  it('maps a write_file run and joins the streamed text into one message', () => {
    expect(parseFixture('success-tool')).toEqual([
      session('40793905-672b-40cc-94de-56f64df1232a'),
      {
        type: 'tool.call',
        data: {
          id: WRITE_ID,
          name: 'write_file',
          input: { file_path: 'hello.txt', content: 'hello from mock\n' },
          files: ['hello.txt'],
        },
      },
      { type: 'tool.result', data: { id: WRITE_ID, ok: true } },
      { type: 'message', data: { text: 'Done: wrote hello.txt.' } },
      { type: 'usage', data: { inputTokens: 201, outputTokens: 20, cachedInputTokens: 14 } },
      { type: 'result', data: { ok: true, message: 'Done: wrote hello.txt.', durationMs: 441 } },
    ]);
  });

  it('maps write_todos to plans, replace to a file change, run_shell_command to a shell call', () => {
    const events = parseFixture('todos-shell');
    expect(events.map((event) => event.type)).toEqual([
      'session.started',
      'message',
      'tool.call',
      'tool.result',
      'plan',
      'tool.call',
      'tool.result',
      'tool.call',
      'tool.result',
      'message',
      'tool.call',
      'tool.result',
      'tool.call',
      'tool.result',
      'plan',
      'message',
      'usage',
      'result',
    ]);
    const plans = events.flatMap((event) => (event.type === 'plan' ? [event.data.items] : []));
    expect(plans).toEqual([
      [
        { text: 'Write hello.txt', status: 'in_progress' },
        { text: 'Check it', status: 'pending' },
        { text: 'Drop the old file', status: 'completed' },
      ],
      [
        { text: 'Write hello.txt', status: 'completed' },
        { text: 'Check it', status: 'completed' },
        { text: 'Drop the old file', status: 'completed' },
      ],
    ]);
    expect(events.slice(1, 5)).toEqual([
      { type: 'message', data: { text: 'I will plan first.' } },
      {
        type: 'tool.call',
        data: {
          id: TODOS_1,
          name: 'write_todos',
          input: {
            todos: [
              { description: 'Write hello.txt', status: 'in_progress' },
              { description: 'Check it', status: 'pending' },
              { description: 'Drop the old file', status: 'cancelled' },
            ],
          },
        },
      },
      { type: 'tool.result', data: { id: TODOS_1, ok: true } },
      expect.objectContaining({ type: 'plan' }),
    ]);
    expect(events[7]).toEqual({
      type: 'tool.call',
      data: {
        id: 'replace__replace_1795952313165_0',
        name: 'replace',
        input: { file_path: 'hello.txt', old_string: 'hello', new_string: 'hello there', instruction: 'greet' },
        files: ['hello.txt'],
      },
    });
    // The command exited 3 after printing: stream-json shows only its output, with status success.
    expect(events.slice(9, 12)).toEqual([
      { type: 'message', data: { text: 'Now checking.' } },
      {
        type: 'tool.call',
        data: {
          id: SHELL_ID,
          name: 'run_shell_command',
          input: { command: 'cat hello.txt && exit 3', description: 'show the file' },
          shell: 'cat hello.txt && exit 3',
        },
      },
      { type: 'tool.result', data: { id: SHELL_ID, ok: true, output: 'hello there' } },
    ]);
    expect(events[13]).toEqual({ type: 'tool.result', data: { id: TODOS_2, ok: true } });
    expect(events.at(-1)).toEqual({
      type: 'result',
      data: { ok: true, message: 'All done: hello.txt says hello there.', durationMs: 661 },
    });
  });

  it('reports the model that did the work when init said auto', () => {
    const events = parseFixture('auto-routed');
    expect(events[0]).toEqual(session('e25ad081-32d2-4a48-8ce4-ba51e5f59db4', 'auto'));
    // The router's classifier (flash-lite, 10 tokens) is not the model that did the turn.
    expect(events.slice(-3)).toEqual([
      session('e25ad081-32d2-4a48-8ce4-ba51e5f59db4', 'gemini-3.8-flash'),
      { type: 'usage', data: { inputTokens: 206, outputTokens: 25, cachedInputTokens: 21 } },
      { type: 'result', data: { ok: true, message: 'Done: wrote hello.txt.', durationMs: 228 } },
    ]);
  });

  it('maps a rejected tool call to a failed tool result', () => {
    const id = 'update_topic__update_topic_1795952461410_0';
    const events = parseFixture('tool-error');
    expect(events.slice(1, 4)).toEqual([
      { type: 'tool.call', data: { id, name: 'update_topic', input: {} } },
      { type: 'tool.result', data: { id, ok: false, output: "params must have required property 'strategic_intent'" } },
      { type: 'message', data: { text: 'Carrying on without a topic.' } },
    ]);
  });

  it('takes the error event as the message of a result without an error', () => {
    const message =
      'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.';
    expect(parseFixture('empty-response')).toEqual([
      session('d2207916-ac69-4918-bd88-53e899d747f5'),
      { type: 'harness.error', data: { message, fatal: false } },
      { type: 'usage', data: { inputTokens: 300, outputTokens: 30, cachedInputTokens: 21 } },
      { type: 'result', data: { ok: false, message, durationMs: 3126 } },
    ]);
  });

  it('maps API-error results', () => {
    expect(parseFixture('quota-daily')).toEqual(
      apiError(
        '206795f5-093f-409d-9611-b73b7a40da35',
        `[API Error: You have exhausted your daily quota on this model.]${RATE_LIMIT_ADVICE}`,
      ),
    );
    expect(parseFixture('overloaded-503')).toEqual(
      apiError('98f36141-e352-44a0-ba96-e82c2d4bb482', '[API Error: The model is overloaded. Please try again later.]'),
    );
  });

  it('reads nothing from an empty stdout and keeps a killed run open', () => {
    expect(parseFixture('auth-41')).toEqual([]);
    expect(parseFixture('killed')).toEqual([session('c9cf3663-faed-4aa5-861b-19808f1918ec')]);
  });

  it('keeps every malformed or unknown line as raw', () => {
    const lines = fixtureLines('gemini', 'garbage');
    expect(parseFixture('garbage')).toEqual(lines.map((line) => ({ type: 'raw', data: { stream: 'stdout', line } })));
  });

  it('produces only events the schema accepts', () => {
    const names = [
      'success-tool',
      'todos-shell',
      'auto-routed',
      'tool-error',
      'empty-response',
      'quota-daily',
      'quota-limit0',
      'quota-long-retry',
      'capacity',
      'rate-limit-minute',
      'rate-limit-plain',
      'server-500',
      'overloaded-503',
      'bad-api-key',
      'forbidden-403',
      'model-not-found',
      'killed',
      'garbage',
    ];
    for (const name of names) {
      for (const event of parseFixture(name)) {
        expect(EventPayloads[event.type].safeParse(event.data).success, `${name}: ${event.type}`).toBe(true);
      }
    }
  });
});

describe('gemini parser rules', () => {
  it('ends a streamed message at the next recognized line, not at a raw one', () => {
    expect(parseOne(init, text('Looking'), 'stray stdout line', text(' around.'), shellCall('t1', 'ls'))).toEqual([
      session('s-1'),
      { type: 'raw', data: { stream: 'stdout', line: 'stray stdout line' } },
      { type: 'message', data: { text: 'Looking around.' } },
      { type: 'tool.call', data: { id: 't1', name: 'run_shell_command', input: expect.anything(), shell: 'ls' } },
    ]);
  });

  it('ends a streamed message before a warning and takes a whole message as is', () => {
    expect(
      parseOne(
        text('Half'),
        { type: 'error', severity: 'warning', message: 'Loop detected, stopping execution' },
        { type: 'message', role: 'assistant', content: 'Whole.' },
        { type: 'message', role: 'user', content: 'the prompt' },
      ),
    ).toEqual([
      { type: 'message', data: { text: 'Half' } },
      { type: 'warning', data: { message: 'Loop detected, stopping execution' } },
      { type: 'message', data: { text: 'Whole.' } },
    ]);
  });

  it('skips whitespace-only text', () => {
    expect(parseOne(text('  \n'), { type: 'result', status: 'success' })).toEqual([
      { type: 'result', data: { ok: true } },
    ]);
  });

  it('reads a shell failure that printed nothing, and a killed command', () => {
    expect(
      parseOne(
        shellCall('a', 'npm test'),
        toolResult('a', 'success', 'Command exited with code: 2'),
        shellCall('b', 'sleep 999'),
        toolResult('b', 'success', 'Command terminated by signal: SIGTERM'),
        { type: 'tool_use', tool_name: 'read_file', tool_id: 'c', parameters: { file_path: 'x' } },
        toolResult('c', 'success', 'Command exited with code: 2'),
      ).filter((event) => event.type === 'tool.result'),
    ).toEqual([
      { type: 'tool.result', data: { id: 'a', ok: false, exitCode: 2, output: 'Command exited with code: 2' } },
      { type: 'tool.result', data: { id: 'b', ok: false, output: 'Command terminated by signal: SIGTERM' } },
      { type: 'tool.result', data: { id: 'c', ok: true, output: 'Command exited with code: 2' } },
    ]);
  });

  it('takes a plan only when Gemini accepted the todo list', () => {
    const todos = (id: string, status: string) => ({
      type: 'tool_use',
      tool_name: 'write_todos',
      tool_id: id,
      parameters: { todos: [{ description: 'Do it', status }] },
    });
    const plans = parseOne(
      todos('rejected', 'in_progress'),
      toolResult('rejected', 'error', 'Only one task can be "in_progress" at a time.'),
      todos('unknown-status', 'someday'),
      toolResult('unknown-status', 'success'),
      todos('blocked', 'blocked'),
      toolResult('blocked', 'success'),
    ).filter((event) => event.type === 'plan');
    expect(plans).toEqual([{ type: 'plan', data: { items: [{ text: 'Do it', status: 'pending' }] } }]);
  });

  it('keeps the session model when the stats name the same one or none with tokens', () => {
    const zero = { total_tokens: 0 };
    const events = parseOne(
      init,
      { type: 'result', status: 'success', stats: { models: { 'gemini-2.5-pro': { total_tokens: 9 } } } },
      { type: 'result', status: 'error', error: { message: 'x' }, stats: { models: { other: zero } } },
    );
    expect(events.filter((event) => event.type === 'session.started')).toEqual([session('s-1')]);
  });

  it('clips a long tool output, keeping both ends', () => {
    const long = `HEAD${'x'.repeat(10_000)}TAIL`;
    const [, event] = parseOne(shellCall('x', 'cat big'), toolResult('x', 'success', long));
    expect(event?.type).toBe('tool.result');
    if (event?.type !== 'tool.result') return;
    expect(event.data.truncated).toBe(true);
    expect(event.data.output?.length).toBeLessThanOrEqual(4000);
    expect(event.data.output?.startsWith('HEAD')).toBe(true);
    expect(event.data.output?.endsWith('TAIL')).toBe(true);
  });

  it('never throws on arbitrary input', () => {
    const parse = geminiAdapter.createParser();
    const inputs = ['{', '}', '"', '\u0000', '{"type":"result","stats":{"models":[]}}', 'x'.repeat(100_000)];
    for (const input of inputs) expect(() => parse(input)).not.toThrow();
  });
});
