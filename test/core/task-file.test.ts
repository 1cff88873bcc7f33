import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeError, EXIT, TaskFileError } from '../../src/core/errors.js';
import { loadTaskFile } from '../../src/core/task-file.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-task-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
/** Writes `text` to a new file `<root>/<n>/<name>` and returns its path. */
function taskFile(text: string, name = 'task.yaml'): string {
  const folder = join(root, `${++files}`);
  mkdirSync(folder);
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

/** The TaskFileError loading `path` throws. */
function failure(path: string): TaskFileError {
  try {
    loadTaskFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskFileError);
    const taskError = error as TaskFileError;
    expect(taskError.exitCode).toBe(EXIT.invalidTask);
    expect(taskError.exitCode).toBe(3);
    expect(taskError.problems.length).toBeGreaterThan(0);
    for (const problem of taskError.problems) expect(problem).not.toMatch(/[\r\n]/);
    expect(taskError.message).toBe(taskError.problems.join('\n'));
    return taskError;
  }
  throw new Error(`${path} loaded without an error`);
}

const MINIMAL = 'name: fix-dates\nprompt: Fix the date parser.\nharness: claude-code\n';

describe('loadTaskFile', () => {
  it('fills the defaults of a minimal task file', () => {
    const path = taskFile(MINIMAL);
    const task = loadTaskFile(path);
    expect(task).toStrictEqual({
      name: 'fix-dates',
      repo: join(root, `${files}`),
      baseRef: 'HEAD',
      prompt: 'Fix the date parser.',
      chain: [{ harness: 'claude-code', args: [], env: {}, passEnv: [] }],
      maxSwitches: 0,
      timeoutMs: 30 * 60_000,
      switchOn: new Set(['quota_exhausted']),
      gates: {
        operations: true,
        workspace: true,
        commands: true,
        nothingTwice: true,
        custom: [],
        failClosed: false,
      },
      waitForReset: false,
      quotaCoolDownMs: 3_600_000,
      countManualSwitches: false,
    });
  });

  it('normalizes string and object harness specs, resolves paths against the file, and reads every field', () => {
    const path = taskFile(
      [
        'name: iso-week_2.0',
        'repo: ../project',
        'baseRef: main',
        'prompt: |',
        '  Make parseDate accept ISO week dates.',
        '  Open a pull request.',
        'harness:',
        '  harness: claude-code',
        '  model: claude-sonnet-4-5',
        '  args: [--max-turns, "40"]',
        '  env: { DISABLE_TELEMETRY: "1" }',
        '  passEnv: [ANTHROPIC_API_KEY]',
        '  simulate: scenarios/claude.yaml',
        'fallbacks:',
        '  - codex',
        '  - { harness: codex, model: gpt-5.5, simulate: /abs/codex.yaml, account: work }',
        'timeout: 1h30m',
        'failoverOn: [rate_limited, overloaded]',
        'maxWait: 2h',
        'quotaCoolDown: 20m',
        'switchAtUtilization: 0.95',
        'countManualSwitches: true',
        'gates:',
        '  commands: { allow: [push-base] }',
        '  custom: [{ name: lint, command: ./gate.sh }]',
        '  failClosed: true',
      ].join('\n'),
    );
    const folder = join(root, `${files}`);
    expect(loadTaskFile(path)).toStrictEqual({
      name: 'iso-week_2.0',
      repo: join(root, 'project'),
      baseRef: 'main',
      prompt: 'Make parseDate accept ISO week dates.\nOpen a pull request.',
      chain: [
        {
          harness: 'claude-code',
          model: 'claude-sonnet-4-5',
          args: ['--max-turns', '40'],
          env: { DISABLE_TELEMETRY: '1' },
          passEnv: ['ANTHROPIC_API_KEY'],
          simulate: join(folder, 'scenarios', 'claude.yaml'),
        },
        { harness: 'codex', args: [], env: {}, passEnv: [] },
        {
          harness: 'codex',
          model: 'gpt-5.5',
          args: [],
          env: {},
          passEnv: [],
          simulate: '/abs/codex.yaml',
          account: 'work',
        },
      ],
      maxSwitches: 2,
      timeoutMs: 90 * 60_000,
      switchOn: new Set(['quota_exhausted', 'rate_limited', 'overloaded']),
      gates: {
        operations: true,
        workspace: true,
        commands: { deny: [], allow: ['push-base'] },
        nothingTwice: true,
        custom: [{ name: 'lint', command: './gate.sh', events: ['PreToolUse'], timeoutMs: 5000 }],
        failClosed: true,
      },
      waitForReset: { maxMs: 2 * 3_600_000 },
      quotaCoolDownMs: 20 * 60_000,
      switchAtUtilization: 0.95,
      countManualSwitches: true,
    });
  });

  it('resolves a relative repo against the task file’s folder, not the working directory', () => {
    const path = taskFile(`${MINIMAL}repo: ./app\n`);
    const fromCwd = relative(process.cwd(), path);
    expect(fromCwd.startsWith('..')).toBe(true);
    expect(loadTaskFile(fromCwd).repo).toBe(join(root, `${files}`, 'app'));
  });

  it.each([
    'https://git.example.com/team/app.git',
    'ssh://git@git.example.com/team/app.git',
    'git@git.example.com:team/app.git',
    'file:///srv/git/app.git',
  ])('keeps a repository URL as written (%s): the worker of a cluster clones it', (url) => {
    expect(loadTaskFile(taskFile(`${MINIMAL}repo: ${JSON.stringify(url)}\n`)).repo).toBe(url);
  });

  it('keeps an explicit maxSwitches, even 0 with fallbacks, and reads a timeout in seconds', () => {
    const task = loadTaskFile(taskFile(`${MINIMAL}fallbacks: [codex, codex]\nmaxSwitches: 0\ntimeout: 600\n`));
    expect(task.maxSwitches).toBe(0);
    expect(task.chain.map((spec) => spec.harness)).toStrictEqual(['claude-code', 'codex', 'codex']);
    expect(task.timeoutMs).toBe(600_000);
    expect(loadTaskFile(taskFile(`${MINIMAL}timeout: "45m"\n`)).timeoutMs).toBe(45 * 60_000);
  });

  it('reads JSON too', () => {
    const path = taskFile(
      '{"name": "t", "prompt": "p", "harness": "codex", "fallbacks": ["claude-code"]}',
      'task.json',
    );
    const task = loadTaskFile(path);
    expect(task.chain.map((spec) => spec.harness)).toStrictEqual(['codex', 'claude-code']);
    expect(task.maxSwitches).toBe(1);
  });

  it('trims the prompt and refuses a blank one', () => {
    expect(loadTaskFile(taskFile('name: t\nprompt: "  do it  "\nharness: codex\n')).prompt).toBe('do it');
    const path = taskFile('name: t\nprompt: "   "\nharness: codex\n');
    expect(failure(path).message).toMatch(new RegExp(`^${escapeRegExp(path)}: prompt: `));
  });
});

describe('loadTaskFile errors', () => {
  it('names a missing file', () => {
    const path = join(root, 'no-such-task.yaml');
    expect(failure(path).message).toBe(`cannot read task file ${path}: no such file (ENOENT)`);
    expect(describeError(failure(path))).toBe(`cannot read task file ${path}: no such file (ENOENT)`);
  });

  it('names a folder given as a file', () => {
    expect(failure(root).message).toBe(`cannot read task file ${root}: a directory, not a file (EISDIR)`);
  });

  it('names the line of invalid YAML', () => {
    const unclosed = taskFile('name: t\nprompt: "p\nharness: codex\ntimeout: 45m');
    expect(failure(unclosed).message).toMatch(
      new RegExp(`^${escapeRegExp(unclosed)}:\\d+: not valid YAML: Missing closing "quote`),
    );
    const indented = taskFile('name: t\nprompt: p\n  harness: codex\n');
    expect(failure(indented).problems[0]).toBe(
      `${indented}:2: not valid YAML: Nested mappings are not allowed in compact mappings`,
    );
    const duplicate = taskFile('name: t\nprompt: p\nharness: codex\nname: u\n');
    expect(failure(duplicate).message).toBe(`${duplicate}:4: not valid YAML: Map keys must be unique`);
  });

  it('names an unknown harness and lists the known ones', () => {
    const path = taskFile('name: t\nprompt: p\nharness: gpt\n');
    expect(failure(path).message).toBe(
      `${path}: harness: unknown harness "gpt" (known: claude-code, codex, gemini, opencode)`,
    );
  });

  it('names an unknown harness in the long form, inside the fallbacks', () => {
    const path = taskFile(`${MINIMAL}fallbacks: [codex, { harness: aider, model: m }]\n`);
    expect(failure(path).message).toBe(
      `${path}: fallbacks[1].harness: unknown harness "aider" (known: claude-code, codex, gemini, opencode)`,
    );
  });

  it('names an unknown field, at the top and inside a harness object', () => {
    const top = taskFile(`${MINIMAL}fallback: [codex]\n`);
    expect(failure(top).message).toBe(`${top}: unknown field "fallback"`);
    const nested = taskFile('name: t\nprompt: p\nharness: { harness: codex, modle: gpt-5.5 }\n');
    expect(failure(nested).message).toBe(`${nested}: harness: unknown field "modle"`);
  });

  it('names a missing required field', () => {
    const noPrompt = taskFile('name: t\nharness: codex\n');
    expect(failure(noPrompt).message).toBe(`${noPrompt}: prompt: required`);
    const noHarness = taskFile('name: t\nprompt: p\n');
    expect(failure(noHarness).message).toBe(`${noHarness}: harness: required`);
    const empty = taskFile('');
    expect(failure(empty).problems).toStrictEqual([
      `${empty}: name: required`,
      `${empty}: prompt: required`,
      `${empty}: harness: required`,
    ]);
  });

  it('names a value of the wrong type without calling it missing', () => {
    const fraction = taskFile(`${MINIMAL}maxSwitches: 1.5\n`);
    const fractionMessage = failure(fraction).message;
    expect(fractionMessage.startsWith(`${fraction}: maxSwitches: `)).toBe(true);
    expect(fractionMessage).not.toContain('required');
    const negative = taskFile(`${MINIMAL}maxSwitches: -1\n`);
    expect(failure(negative).message).toBe(`${negative}: maxSwitches: Too small: expected number to be >=0`);
  });

  it('names a bad timeout, including a zero one', () => {
    for (const timeout of ['5x', '1h 30m', '"0"', '0', '-5m']) {
      const path = taskFile(`${MINIMAL}timeout: ${timeout}\n`);
      expect(failure(path).message, timeout).toBe(`${path}: timeout: not a duration (examples: 45m, 1h30m, 90s, 600)`);
    }
  });

  it('names a bad name', () => {
    for (const name of ['"bad name"', '-leading-dash', 'a/b', 'x'.repeat(65)]) {
      const path = taskFile(`name: ${name}\nprompt: p\nharness: codex\n`);
      expect(failure(path).message, name).toBe(`${path}: name: use letters, digits, ".", "_" or "-" (at most 64)`);
    }
    expect(loadTaskFile(taskFile(`name: ${'x'.repeat(64)}\nprompt: p\nharness: codex\n`)).name).toHaveLength(64);
  });

  it('refuses failoverOn outcomes that cannot switch', () => {
    for (const outcome of ['completed', 'canceled', 'timed_out', 'switched']) {
      const path = taskFile(`${MINIMAL}failoverOn: [rate_limited, ${outcome}]\n`);
      const { message } = failure(path);
      expect(message.startsWith(`${path}: failoverOn[1]: `), message).toBe(true);
      expect(message).toContain('expected one of');
      expect(message).not.toContain(`"${outcome}"`);
    }
  });

  it('refuses a passEnv name that is not a variable name', () => {
    const path = taskFile('name: t\nprompt: p\nharness: { harness: codex, passEnv: [OPENAI-KEY] }\n');
    expect(failure(path).message.startsWith(`${path}: harness.passEnv[0]: `)).toBe(true);
  });

  it('refuses a switchAtUtilization outside (0, 1] and an account that is not a name', () => {
    for (const share of ['0', '1.5', '-0.2', '"95%"']) {
      const path = taskFile(`${MINIMAL}switchAtUtilization: ${share}\n`);
      expect(failure(path).message.startsWith(`${path}: switchAtUtilization: `), share).toBe(true);
    }
    expect(loadTaskFile(taskFile(`${MINIMAL}switchAtUtilization: 1\n`)).switchAtUtilization).toBe(1);
    const path = taskFile('name: t\nprompt: p\nharness: { harness: codex, account: "my work" }\n');
    expect(failure(path).message).toBe(`${path}: harness.account: use letters, digits, ".", "_" or "-" (at most 64)`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
