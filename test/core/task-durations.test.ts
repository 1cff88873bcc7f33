import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, TaskFileError } from '../../src/core/errors.js';
import { loadTaskFile } from '../../src/core/task-file.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-task-durations-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MINIMAL = 'name: long\nprompt: Do it.\nharness: claude-code\n';

/** Loads a minimal task file with `extra` lines appended. */
function load(extra: string) {
  const path = join(root, 'task.yaml');
  writeFileSync(path, `${MINIMAL}${extra}\n`);
  return loadTaskFile(path);
}

/** The one line loading a task with `extra` fails with. */
function refusal(extra: string): string {
  try {
    load(extra);
  } catch (error) {
    expect(error).toBeInstanceOf(TaskFileError);
    expect((error as TaskFileError).exitCode).toBe(EXIT.invalidTask);
    return (error as TaskFileError).message.replace(`${join(root, 'task.yaml')}: `, '');
  }
  throw new Error(`${extra} was accepted`);
}

describe('the maximum of each duration of a task', () => {
  it('takes a timeout up to 720h (30 days)', () => {
    expect(load('timeout: 600h').timeoutMs).toBe(600 * 3_600_000);
    expect(load('timeout: 30d').timeoutMs).toBe(720 * 3_600_000);
    expect(load('timeout: 720h').timeoutMs).toBe(720 * 3_600_000);
  });

  it('refuses a longer timeout in one line naming the field, the value and the maximum', () => {
    expect(refusal('timeout: 800h')).toBe('timeout: 800h is longer than the maximum, 720h');
    expect(refusal('timeout: 720h1s')).toBe('timeout: 720h1s is longer than the maximum, 720h');
    expect(refusal('timeout: 1e308')).toBe('timeout: 1e+308 (seconds) is longer than the maximum, 720h');
    expect(refusal('timeout: 2592001')).toBe('timeout: 2592001 (seconds) is longer than the maximum, 720h');
  });

  it('bounds interruptBudget at 1h, maxWait at 720h and quotaCoolDown at 720h', () => {
    expect(load('interruptBudget: 1h').interruptBudgetMs).toBe(3_600_000);
    expect(refusal('interruptBudget: 61m')).toBe('interruptBudget: 61m is longer than the maximum, 1h');
    expect(load('maxWait: 720h').waitForReset).toEqual({ maxMs: 720 * 3_600_000 });
    expect(refusal('maxWait: 31d')).toBe('maxWait: 31d is longer than the maximum, 720h');
    expect(load('quotaCoolDown: 7d').quotaCoolDownMs).toBe(7 * 24 * 3_600_000);
    expect(refusal('quotaCoolDown: 1e9')).toBe('quotaCoolDown: 1000000000 (seconds) is longer than the maximum, 720h');
  });

  it('still says what is not a duration at all', () => {
    expect(refusal('timeout: soon')).toBe('timeout: not a duration (examples: 45m, 1h30m, 90s, 600)');
  });
});

describe('the maximum of a custom gate timeout', () => {
  it('refuses a custom gate given more than an hour, which a timer would fire at once', () => {
    const gate = 'gates:\n  custom:\n    - name: slow\n      command: "true"\n      timeoutMs: ';
    expect(load(`${gate}3600000`).gates?.custom?.[0]?.timeoutMs).toBe(3_600_000);
    expect(refusal(`${gate}100000000000`)).toMatch(/timeoutMs/);
  });
});
