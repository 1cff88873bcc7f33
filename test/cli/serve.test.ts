/**
 * `harmflow serve` as users start it: the built bin on a free port, then the API over a real socket —
 * an execution run by `harmflow run` in another process is listed and its events stream to the end.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { endedExecution } from '../execution/ended-execution.js';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';
import { until } from '../service/bench.js';
import { SERVED_TOKEN, serve } from './served.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const TOKEN = SERVED_TOKEN;

let bench: Bench;
let server: ChildProcess | undefined;
/** What the running server printed so far. */
let printed = () => '';
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  server?.kill('SIGTERM');
  await bench.cleanup();
});

function startServer(home: string, args: readonly string[] = []): Promise<string> {
  const served = serve(home, args);
  server = served.process;
  printed = served.printed;
  return served.url;
}

describe('harmflow serve', () => {
  it('serves executions and their event stream, with the token required', async () => {
    const home = join(bench.dir, 'home-served');
    const scenario = bench.scenario('claude', { steps: [{ say: 'hello from the run' }, { end: 'complete' }] });
    const file = join(bench.dir, 'task.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'served',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'p',
        harness: simulated('claude-code', scenario),
      }),
    );
    const run = spawnSync(process.execPath, [BIN, 'run', file, '--home', home], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...GIT_IDENTITY },
    });
    expect(run.status).toBe(0);
    const id = /execution (\w{26}): succeeded/.exec(run.stdout)?.[1];

    const url = await startServer(home);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${url}/api/executions`)).status).toBe(401);
    const listed = (await (await fetch(`${url}/api/executions`, { headers: auth })).json()) as {
      executions: { id: string; state: string }[];
    };
    expect(listed.executions.map((e) => [e.id, e.state])).toEqual([[id, 'succeeded']]);

    const stream = await fetch(`${url}/api/executions/${id}/events`, { headers: auth });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await stream.text(); // the stream ends after execution.ended
    expect(text).toContain('hello from the run');
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(text).toMatch(/"type":"execution\.ended"/);
  });
});

describe('the worktree cleanup in the service', () => {
  it('removes an expired clean worktree at start, says so, and reports the disk used', async () => {
    const old = await endedExecution({
      home: bench.home,
      store: bench.store,
      repo: bench.repo,
      taskName: 'old',
      endedAt: new Date(Date.now() - 3 * 86_400_000),
    });
    // A shared cache over the limit (0 GiB): the cleanup removes it too, no harness using it.
    mkdirSync(join(bench.home.caches, 'npm', '_cacache'), { recursive: true });
    writeFileSync(join(bench.home.caches, 'npm', '_cacache', 'entry'), 'tarball');
    const url = await startServer(bench.home.root, [
      '--worktree-retention',
      '2d',
      '--disk-floor-gib',
      '0',
      '--cache-limit-gib',
      '0',
    ]);
    await until(() => printed().includes(`gc: removed the worktree of ${old.id} (old, `));
    await until(() => printed().includes('gc: removed the shared npm cache ('));
    expect(existsSync(join(bench.home.caches, 'npm'))).toBe(false);
    expect(existsSync(old.worktree)).toBe(false);

    const auth = { authorization: `Bearer ${TOKEN}` };
    const listed = (await (await fetch(`${url}/api/executions?include=disk`, { headers: auth })).json()) as {
      disk: Record<string, { worktreeBytes: number; runBytes: number; worktreeRemovedAt?: string }>;
    };
    expect(listed.disk[old.id]).toMatchObject({ worktreeBytes: 0, worktreeRemovedAt: expect.any(String) });
    const admission = (await (await fetch(`${url}/api/admission`, { headers: auth })).json()) as Record<
      string,
      unknown
    >;
    expect(admission).toMatchObject({
      worktreesBytes: 0,
      runsBytes: expect.any(Number),
      cachesBytes: 0,
      caches: { npm: 0, pnpm: 0, yarn: 0, pip: 0, go: 0, cargo: 0, bazel: 0 },
    });
    expect(admission.runsBytes).toBeGreaterThan(0);
  });

  it('refuses a retention that is not a duration', () => {
    const result = spawnSync(process.execPath, [BIN, 'serve', '--worktree-retention', 'soon', '--home', bench.dir], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('harmflow: --worktree-retention: not a duration (examples: 7d, 36h, 0): soon\n');
  });
});

describe('harmflow serve on a port in use', () => {
  it('on a port in use: one line and exit 2, and nothing made under the state directory', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) => {
      taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port));
    });
    try {
      const home = join(bench.dir, 'busy-home');
      const result = spawnSync(process.execPath, [BIN, 'serve', '--port', String(port), '--home', home], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
        timeout: 30_000,
      });
      expect(result.stderr).toBe(`harmflow: port ${port} on 127.0.0.1 is in use; pick another with --port\n`);
      expect(result.status).toBe(EXIT.usage);
      expect(existsSync(home)).toBe(false); // no database, no token it never showed
    } finally {
      taken.close();
    }
  });
});

describe('the service verbs against the real service', () => {
  it('submit, send, admission hold/release, cancel and stop', { timeout: 60_000 }, async () => {
    const home = join(bench.dir, 'home-service');
    const url = await startServer(home, ['--disk-floor-gib', '0', '--interrupt-budget', '2s']);
    // Each turn takes 10 s, so the execution still runs when the cancel comes, after six CLI calls
    // (each a Node start, more than a second on a loaded machine).
    const scenario = bench.scenario('slow', {
      pace: '1s',
      steps: [...Array.from({ length: 9 }, (_, at) => ({ say: `line ${at + 1}` })), { end: 'complete' }],
    });
    const file = join(bench.dir, 'task.yaml');
    writeFileSync(
      file,
      stringify({ name: 'verbs', repo: 'repo', baseRef: 'main', prompt: 'p', harness: simulated('codex', scenario) }),
    );
    const env = { PATH: process.env.PATH, HARMFLOW_URL: url, HARMFLOW_TOKEN: TOKEN };
    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env });

    const submitted = cli('submit', file);
    expect(submitted.stderr).toBe('');
    expect(submitted.status).toBe(0);
    const id = /^(\w{26}) (queued|running)$/m.exec(submitted.stdout)?.[1] ?? '';
    expect(id).toHaveLength(26);

    const sent = cli('send', id, 'also', 'the', 'changelog');
    expect(sent.status).toBe(0);
    expect(sent.stdout).toContain(`queued turn t2 for ${id}`);

    expect(cli('admission', 'hold', 'disk', 'maintenance').status).toBe(0);
    const refused = cli('submit', file);
    expect(refused.status).toBe(8);
    expect(refused.stderr).toMatch(/held by an operator: disk maintenance/);
    const status = JSON.parse(cli('admission', '--json').stdout) as { held: boolean; running: number };
    expect(status).toMatchObject({ held: true, running: 1 });
    expect(cli('admission', 'release').status).toBe(0);

    const canceled = cli('cancel', id);
    expect(canceled.status).toBe(0);
    expect(canceled.stdout).toMatch(/canceled/);
    expect(cli('send', id, 'too late').status).toBe(7);

    const stopped = cli('stop');
    expect(stopped.status).toBe(0);
    await new Promise((resolve) => server?.once('exit', resolve));
    expect(server?.exitCode).toBe(0);
    const gone = cli('admission');
    expect(gone.status).toBe(8);
    expect(gone.stderr).toMatch(/no HarmFlow service at/);
  });
});
