/**
 * A task file's problems are reported all at once (issue 25): every schema problem of the file —
 * unknown harnesses, unknown keys, bad durations, missing fields, nested ones — one line each,
 * naming the file and the place in it; YAML that cannot be read, one line a broken line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, TaskFileError } from '../../src/core/errors.js';
import { loadTaskFile } from '../../src/core/task-file.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-task-problems-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The problems loading `text` as task.yaml reports. */
function problems(text: string): readonly string[] {
  const path = join(root, 'task.yaml');
  writeFileSync(path, text);
  try {
    loadTaskFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskFileError);
    expect((error as TaskFileError).exitCode).toBe(EXIT.invalidTask);
    return (error as TaskFileError).problems.map((line) => line.replace(`${path}`, 'task.yaml'));
  }
  throw new Error('the task file loaded without an error');
}

const KNOWN = '(known: claude-code, codex, gemini, opencode)';

describe('a task file with many problems', () => {
  it('reports every one of them, one line each, with its place in the file', () => {
    const text = [
      'name: fix dates',
      'harness: claude-code',
      'fallbacks:',
      '  - codex',
      '  - cluade',
      '  - { harness: codex, modle: gpt-5.5 }',
      'timeout: 5 minutes',
      'interruptBudget: 2h',
      'maxSwitches: -1',
      'failoverOn: [rate_limited, completed]',
      'gates:',
      '  custom: [{ name: lint }]',
      'retries: 3',
    ].join('\n');
    expect(problems(text)).toStrictEqual([
      'task.yaml: name: use letters, digits, ".", "_" or "-" (at most 64)',
      'task.yaml: prompt: required',
      `task.yaml: fallbacks[1]: unknown harness "cluade" ${KNOWN}`,
      'task.yaml: fallbacks[2]: unknown field "modle"',
      'task.yaml: maxSwitches: Too small: expected number to be >=0',
      'task.yaml: timeout: not a duration (examples: 45m, 1h30m, 90s, 600)',
      'task.yaml: interruptBudget: 2h is longer than the maximum, 1h',
      expect.stringMatching(/^task\.yaml: failoverOn\[1\]: .*expected one of/),
      'task.yaml: gates.custom[0].command: required',
      'task.yaml: unknown field "retries"',
    ]);
  });

  it('reports every line YAML cannot read, and only the first error of a line', () => {
    const text = ['name: t', 'prompt: "p', 'harness: codex', 'timeout: [45m', 'maxSwitches: 1'].join('\n');
    const found = problems(text);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const line of found) expect(line).toMatch(/^task\.yaml:\d+: not valid YAML: /);
    const lines = found.map((line) => line.split(':')[1]);
    expect(new Set(lines).size).toBe(lines.length);
    const twoKeys = problems('name: t\nname: u\nprompt: p\nprompt: q\nharness: codex\n');
    expect(twoKeys).toStrictEqual([
      'task.yaml:2: not valid YAML: Map keys must be unique',
      'task.yaml:4: not valid YAML: Map keys must be unique',
    ]);
  });

  it('keeps a file with one problem to one line', () => {
    expect(problems('name: t\nprompt: p\nharness: gpt\n')).toStrictEqual([
      `task.yaml: harness: unknown harness "gpt" ${KNOWN}`,
    ]);
  });
});
