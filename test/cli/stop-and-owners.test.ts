/**
 * `harmflow stop` and `harmflow ls` against the built service (issue 26, part 3): `ls` names the
 * process and host that drive each live execution — the service's, for the running one and the one
 * queued behind it — and none for an ended one; a stale owner file says its process is gone; `stop`
 * says how many executions it suspends, and they are left open, undriven, for the next start.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { harmflowHome } from '../../src/core/home.js';
import { type Bench, makeBench, simulated } from '../execution/fixture.js';
import { SERVED_TOKEN, serve } from './served.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const TOKEN = SERVED_TOKEN;

let bench: Bench;
let server: ChildProcess | undefined;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  server?.kill('SIGTERM');
  await bench.cleanup();
});

function startServer(home: string, args: readonly string[]): Promise<string> {
  const served = serve(home, args);
  server = served.process;
  return served.url;
}

interface Listed {
  id: string;
  state: string;
  turnCount?: number;
  owner?: { pid: number; host?: string; alive: boolean | null };
}

describe('stop and ls', () => {
  it('ls names who drives each live execution; stop says what it suspends', { timeout: 60_000 }, async () => {
    const home = join(bench.dir, 'home');
    const url = await startServer(home, ['--disk-floor-gib', '0', '--max-running', '1', '--close-budget', '5s']);
    const scenario = bench.scenario('slow', {
      pace: '1s',
      steps: [...Array.from({ length: 20 }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    });
    const quick = bench.scenario('quick', { steps: [{ say: 'Done.' }, { end: 'complete' }] });
    const task = (name: string, file: string) => {
      const path = join(bench.dir, `${name}.yaml`);
      writeFileSync(
        path,
        stringify({ name, repo: 'repo', baseRef: 'main', prompt: 'p', harness: simulated('codex', file) }),
      );
      return path;
    };
    const env = { PATH: process.env.PATH, HARMFLOW_URL: url, HARMFLOW_TOKEN: TOKEN };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, cwd: bench.dir });
    const idOf = (output: string) => /^(\w{26}) /m.exec(output)?.[1] ?? '';

    // One ends first, so the list has an ended execution beside the live ones.
    const ended = idOf(cli('submit', task('quick', quick)).stdout);
    expect(ended).toHaveLength(26);
    const ls = (): Listed[] => JSON.parse(cli('ls', '--all', '--json', '--home', home).stdout) as Listed[];
    const until = async (ok: (rows: Listed[]) => boolean) => {
      for (let tries = 0; tries < 200; tries++) {
        if (ok(ls())) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`never: ${JSON.stringify(ls())}`);
    };
    await until((rows) => rows.find((row) => row.id === ended)?.state === 'succeeded');
    const running = idOf(cli('submit', task('running', scenario)).stdout);
    const queued = idOf(cli('submit', task('queued', scenario)).stdout);
    await until((rows) => rows.find((row) => row.id === running)?.state === 'running');

    const rows = ls();
    const byId = (id: string) => rows.find((row) => row.id === id);
    const served = { pid: server?.pid, host: hostname(), alive: true };
    expect(byId(running)?.owner).toStrictEqual(served);
    expect(byId(queued)).toMatchObject({ state: 'queued', owner: served });
    expect(byId(ended)).toMatchObject({ state: 'succeeded', turnCount: 1 });
    expect(byId(ended)).not.toHaveProperty('owner');
    expect(cli('show', ended, '--home', home).stdout).toMatch(/^turns {5}1 completed$/m);
    const text = cli('ls', '--home', home).stdout;
    expect(text.split('\n')[0]).toMatch(/^ID +STATE +ATT +TURNS +PR +OWNER +HARNESS +DISK +CREATED +TASK$/);
    expect(text).toMatch(new RegExp(`^${running} +running +1 +0 +- +${server?.pid}@${hostname()} +codex `, 'm'));

    const stopped = cli('stop', '--json');
    expect(stopped.status).toBe(EXIT.ok);
    expect(JSON.parse(stopped.stdout)).toStrictEqual({
      stopping: true,
      suspending: { running: 1, waiting: 0, queued: 1 },
    });
    await new Promise((resolve) => server?.once('exit', resolve));
    expect(server?.exitCode).toBe(0);

    // Suspended, not ended: both still live for the next start, and nobody drives them now.
    const after = ls();
    for (const id of [running, queued]) {
      const row = after.find((candidate) => candidate.id === id);
      expect(['queued', 'running']).toContain(row?.state);
      expect(row).not.toHaveProperty('owner');
    }
    // A stale owner file (its process is gone) is shown as such, not as running there.
    const exited = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(harmflowHome(home).ownerFile(running), `${exited} 1 ${hostname()}\n`);
    expect(ls().find((row) => row.id === running)?.owner).toStrictEqual({
      pid: exited,
      host: hostname(),
      alive: false,
    });
    expect(cli('ls', '--home', home).stdout).toMatch(new RegExp(`${exited}@${hostname()} \\(gone\\)`));
  });
});
