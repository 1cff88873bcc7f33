import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/proc/which.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('findExecutable', () => {
  it('returns the first executable regular file on PATH, skipping non-executables and directories', async () => {
    const root = await dirs.make();
    const [plain, folder, first, second] = ['plain', 'folder', 'first', 'second'].map((name) => join(root, name));
    for (const dir of [plain, folder, first, second]) await mkdir(dir ?? '');
    await writeFile(join(plain ?? '', 'claude'), '#!/bin/sh\n'); // not executable
    await mkdir(join(folder ?? '', 'claude')); // a directory
    for (const dir of [first, second]) {
      await writeFile(join(dir ?? '', 'claude'), '#!/bin/sh\n');
      await chmod(join(dir ?? '', 'claude'), 0o755);
    }
    const path = ['', 'relative/bin', plain, folder, first, second].join(':');
    expect(findExecutable('claude', path)).toBe(join(first ?? '', 'claude'));
    expect(findExecutable('codex', path)).toBeUndefined();
    expect(findExecutable('claude', '')).toBeUndefined();
  });

  it('checks a name with a slash as a path', async () => {
    const root = await dirs.make();
    const file = join(root, 'tool');
    await writeFile(file, '#!/bin/sh\n');
    expect(findExecutable(file, '')).toBeUndefined();
    await chmod(file, 0o700);
    expect(findExecutable(file, '')).toBe(file);
  });
});
