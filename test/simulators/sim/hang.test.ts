/**
 * The `hang` ending: with `ignoreInterrupt` and `child`, the simulator and its grandchild survive a
 * SIGTERM to their process group; a SIGKILL to the group leaves nothing behind.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { argvFor, requireBuilt, SIM } from '../helpers.js';

let dir: string;
beforeAll(async () => {
  requireBuilt();
  dir = await mkdtemp(join(tmpdir(), 'harmflow-sim-hang-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Live (not zombie) processes whose process group is `pgid`, from /proc. */
async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (group !== undefined && Number(group) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** SIGTERM (15) is bit 14 of the SigCgt/SigIgn masks in /proc/<pid>/status. */
const SIGTERM_BIT = 1n << 14n;

/** True when `pid` catches or ignores SIGTERM (its handler is in place). */
async function handlesSigterm(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const mask = (name: string) => BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1] ?? '0'}`);
  return ((mask('SigCgt') | mask('SigIgn')) & SIGTERM_BIT) !== 0n;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}

test('hang with ignoreInterrupt and a child survives SIGTERM and dies, child and all, on SIGKILL', {
  timeout: 15_000,
}, async () => {
  const scenario = join(dir, 'stuck.yaml');
  await writeFile(
    scenario,
    stringify({ steps: [{ say: 'Thinking…' }, { end: { hang: { ignoreInterrupt: true, child: true } } }] }),
  );
  const child = spawn(process.execPath, [SIM, ...argvFor('claude-code', 'go')], {
    cwd: dir,
    env: { ...process.env, HARMFLOW_SIM_AS: 'claude-code', HARMFLOW_SIM_SCENARIO: scenario },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const pgid = child.pid as number;
  let exited = false;
  const closed = new Promise<NodeJS.Signals | null>((resolve) => {
    child.on('exit', (_code, signal) => {
      exited = true;
      resolve(signal);
    });
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  try {
    // Set up once the group has two members and both have their SIGTERM disposition in place.
    const ready = async () => {
      const members = await groupMembers(pgid);
      return members.length === 2 && (await Promise.all(members.map(handlesSigterm))).every(Boolean);
    };
    expect(await waitFor(ready, 8_000)).toBe(true);
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['system', 'assistant']);

    process.kill(-pgid, 'SIGTERM');
    await sleep(400);
    expect(exited).toBe(false);
    expect(await groupMembers(pgid)).toHaveLength(2);

    process.kill(-pgid, 'SIGKILL');
    expect(await closed).toBe('SIGKILL');
    expect(await waitFor(async () => (await groupMembers(pgid)).length === 0, 3_000)).toBe(true);
    expect(stdout.trimEnd().split('\n')).toHaveLength(2);
  } finally {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // The group is gone already: nothing to clean up.
    }
  }
});
