/**
 * `harmflow serve` as users start it: the built bin on a free port, then the API over a real socket —
 * an execution run by `harmflow run` in another process is listed and its events stream to the end.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Bench, GIT_IDENTITY, makeBench, simulated } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const TOKEN = 'test-token-0123456789';

let bench: Bench;
let server: ChildProcess | undefined;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  server?.kill('SIGTERM');
  await bench.cleanup();
});

async function startServer(home: string): Promise<string> {
  server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home], {
    env: { PATH: process.env.PATH, HARMFLOW_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of server.stdout ?? []) {
    output += String(chunk);
    const url = /HarmFlow service on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (url) return url;
  }
  throw new Error(`serve printed no URL: ${output}`);
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
