/**
 * The task file's `caches` key (issue 26): `shared` by default and then left out of the task (as
 * tasks stored before it), `private` and `none` kept and stored, a stored task read back with the
 * same choice, and any other value one line naming the key and the three choices.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TaskFileError } from '../../src/core/errors.js';
import { storedTask, taskFromStore } from '../../src/core/task.js';
import { loadTaskFile } from '../../src/core/task-file.js';

const root = mkdtempSync(join(tmpdir(), 'harmflow-task-caches-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MINIMAL = 'name: fix-dates\nprompt: Fix the date parser.\nharness: claude-code\n';

function load(extra: string) {
  const path = join(root, 'task.yaml');
  writeFileSync(path, `${MINIMAL}${extra}`);
  return loadTaskFile(path);
}

describe('caches in a task file', () => {
  it('is shared by default, and a shared task keeps no key for it', () => {
    expect(load('')).not.toHaveProperty('caches');
    expect(load('caches: shared\n')).not.toHaveProperty('caches');
  });

  it('keeps private and none, and a stored task reads back with them', () => {
    for (const mode of ['private', 'none'] as const) {
      const task = load(`caches: ${mode}\n`);
      expect(task.caches).toBe(mode);
      expect(taskFromStore(JSON.parse(JSON.stringify(storedTask(task)))).caches).toBe(mode);
    }
  });

  it('reads a task stored before the key existed as shared', () => {
    const stored = storedTask(load(''));
    expect(stored).not.toHaveProperty('caches');
    expect(taskFromStore(stored)).not.toHaveProperty('caches');
  });

  it('refuses any other value with one line naming the key and the choices', () => {
    const path = join(root, 'task.yaml');
    writeFileSync(path, `${MINIMAL}caches: shard\n`);
    let caught: unknown;
    try {
      loadTaskFile(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TaskFileError);
    expect((caught as TaskFileError).problems).toEqual([
      `${path}: caches: Invalid option: expected one of "shared"|"private"|"none"`,
    ]);
  });
});
