/**
 * Who an owner file names, as a list shows it (issue 26, part 3): the pid and host of the process
 * that drives the execution, whether it still runs, and files written before the host was kept.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimOwnership, ownerProcess, releaseOwnership } from '../../src/execution/owner-file.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-owner-'));
  file = join(dir, 'owner');
});
afterEach(() => {
  releaseOwnership(file);
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('no child process');
  return child.pid;
}

describe('ownerProcess', () => {
  it('names this process and its host once it claims the execution, and nobody once it releases it', () => {
    expect(claimOwnership(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid} \\d+ ${hostname()}\\n$`));
    expect(ownerProcess(file)).toStrictEqual({ pid: process.pid, host: hostname(), alive: true });
    releaseOwnership(file);
    expect(ownerProcess(file)).toBeUndefined();
  });

  it('says a process that is gone is not alive: a stale file drives nothing', () => {
    const pid = exitedPid();
    writeFileSync(file, `${pid} 12345 ${hostname()}\n`);
    expect(ownerProcess(file)).toStrictEqual({ pid, host: hostname(), alive: false });
    expect(claimOwnership(file)).toBe(true);
  });

  it('reads a file written before the host was kept, with no host', () => {
    writeFileSync(file, `${process.pid} 0\n`);
    expect(ownerProcess(file)).toStrictEqual({ pid: process.pid, alive: true });
    writeFileSync(file, `${exitedPid()} 0\n`);
    expect(ownerProcess(file)?.alive).toBe(false);
  });

  it('does not check a process of another host', () => {
    writeFileSync(file, `${process.pid} 0 elsewhere.example\n`);
    expect(ownerProcess(file)).toStrictEqual({ pid: process.pid, host: 'elsewhere.example', alive: null });
  });
});
