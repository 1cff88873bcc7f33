/**
 * `harmflow run` ends by naming what the last attempt reported completed that HarmFlow did not see
 * (issue 20): a succeeded execution whose harness only said it opened a pull request is not read as
 * one that did. The built bin, the simulator playing claude-code. Needs dist/ built.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type Bench, GIT_IDENTITY, makeBench } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let bench: Bench;
beforeEach(() => {
  bench = makeBench();
});
afterEach(async () => {
  await bench.cleanup();
});

describe('harmflow run', () => {
  it('names the claims of the last attempt HarmFlow did not see, after its state', () => {
    const scenario = bench.scenario('claims', {
      steps: [
        {
          plan: [
            { text: 'Write the notes', status: 'in_progress' },
            { text: 'Open a pull request', status: 'pending' },
          ],
        },
        { write: { path: 'notes.txt', content: 'noted\n' } },
        {
          plan: [
            { text: 'Write the notes', status: 'completed' },
            { text: 'Open a pull request', status: 'completed' },
          ],
        },
        { end: { complete: { message: 'Done: the pull request is open.' } } },
      ],
    });
    const file = join(bench.dir, 'task.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'claims',
        repo: 'repo',
        baseRef: 'main',
        prompt: 'Take a note and open a pull request.',
        harness: { harness: 'claude-code', simulate: scenario, env: GIT_IDENTITY },
        timeout: '2m',
      }),
    );
    const run = spawnSync(process.execPath, [BIN, 'run', file], {
      encoding: 'utf8',
      env: { ...process.env, HARMFLOW_HOME: join(bench.dir, 'state') },
      timeout: 90_000,
    });
    expect(run.status).toBe(0);
    const tail = run.stdout.slice(run.stdout.lastIndexOf('\nexecution '));
    expect(tail).toMatch(
      /^\nexecution \w{26}: succeeded\nunconfirmed: attempt 1 \(claude-code\) "Open a pull request": HarmFlow saw no pull request opened by this attempt\ncontext: \S+context\.json\n$/,
    );
  }, 120_000);
});
