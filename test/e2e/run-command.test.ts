/**
 * `harmflow run` with a chain of REAL CLIs pointed at the model-API simulator behaves like the
 * simulated demo: one execution, a switch on quota, a true context.json.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ExecutionContext } from '../../src/execution/context-schema.js';
import { connectHarness } from '../../src/simulators/model-api/connect.js';
import { type ModelApi, startModelApi } from '../../src/simulators/model-api/server.js';
import { type Bench, GIT_IDENTITY, makeBench } from '../execution/fixture.js';
import { REAL_PATH, realHarnessesAvailable } from './real-harnesses.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
const enabled = realHarnessesAvailable(['claude-code', 'codex']);

let api: ModelApi;
let bench: Bench;
beforeAll(async () => {
  if (!enabled) return;
  api = await startModelApi({
    scripts: {
      claude: [{ write: { path: 'part-one.txt', content: 'one\n' } }, { quota: true }],
      codex: [{ write: { path: 'part-two.txt', content: 'two\n' } }, 'Done: both parts are there.'],
    },
  });
  bench = makeBench();
});
afterAll(async () => {
  await api?.close();
  await bench?.cleanup();
});

describe.skipIf(!enabled)('harmflow run with real CLIs', () => {
  it('switches from claude-code to codex on quota within one execution', async () => {
    const claude = connectHarness('claude-code', { url: api.url, script: 'claude' });
    const codex = connectHarness('codex', { url: api.url, script: 'codex' });
    const file = join(bench.dir, 'task.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'real-chain',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'Write part-one.txt and part-two.txt.',
        harness: { harness: 'claude-code', env: claude.env, args: claude.args },
        fallbacks: [{ harness: 'codex', model: 'gpt-5.5', env: codex.env, args: codex.args }],
        timeout: '3m',
      }),
    );
    const home = join(bench.dir, 'cli-home');
    // Asynchronously: the simulator answering the CLIs runs in this process's event loop.
    const run = await promisify(execFile)(process.execPath, [BIN, 'run', file], {
      // The identity the user has in their terminal, which HarmFlow gives the harnesses to commit with.
      env: { PATH: REAL_PATH, HARMFLOW_HOME: home, ...GIT_IDENTITY },
      timeout: 120_000,
    });

    expect(run.stdout).toMatch(/SWITCH claude-code → codex \(quota_exhausted; switch 1 of 1\)/);
    const id = /execution (\w{26}): succeeded/.exec(run.stdout)?.[1];
    const contextFile = join(home, 'runs', id ?? '?', 'context.json');
    const context = ExecutionContext.parse(JSON.parse(readFileSync(contextFile, 'utf8')));
    expect(context.attempts.map((a) => [a.harness, a.outcome])).toEqual([
      ['claude-code', 'quota_exhausted'],
      ['codex', 'completed'],
    ]);
    expect(context.attempts[0]?.workItems[0]?.filesChanged).toEqual(['part-one.txt']);
    expect(api.requests.filter((r) => r.script === 'codex')[0]?.lastUserText).toContain(
      `HarmFlow context file: ${contextFile}`,
    );
  }, 120_000);
});
