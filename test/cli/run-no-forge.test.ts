/**
 * A task that asks for a pull request where no `gh` can be found (issue 25): `harmflow run` says so
 * once, loudly, before the first attempt — a `workspace.warning` of kind `no_forge` the timeline
 * shows as a WARNING line, and the same words on stderr — instead of a pull request failing quietly
 * (`gh: command not found`) inside an execution that succeeds. The harness is a fake `claude` (the
 * simulator started under that name, not through `simulate:`), on a PATH made of links to the few
 * tools a run needs, so no `gh` of this machine is in sight. A link played through `simulate:` has
 * the fake forge on its PATH: no warning; but when its pull request fails all the same, the end of
 * the execution says that none was opened. Needs dist/ built (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { type EventRecord, parseEventRecord } from '../../src/events/schema.js';
import { findExecutable } from '../../src/proc/which.js';
import { SIM_BIN } from '../../src/simulators/launch.js';
import { type Bench, GIT_IDENTITY, makeBench } from '../execution/fixture.js';

const BIN = new URL('../../bin/harmflow.js', import.meta.url).pathname;
/** What a run needs on PATH besides the harness: git for the worktree, a shell for the simulator's steps and the fake forge's script. */
const TOOLS = ['git', 'bash', 'sh', 'env', 'dirname', 'readlink'];

let bench: Bench;
let path: string;
beforeEach(() => {
  bench = makeBench();
  const bin = join(bench.dir, 'bin');
  mkdirSync(bin);
  for (const tool of TOOLS) {
    const found = findExecutable(tool, process.env.PATH ?? '');
    if (found === undefined) throw new Error(`${tool} is not on PATH`);
    symlinkSync(found, join(bin, tool));
  }
  symlinkSync(process.execPath, join(bin, 'node'));
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${SIM_BIN}" "$@"\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  path = bin;
});
afterEach(async () => {
  await bench.cleanup();
});

/** Runs the task `link` plays, asking for a pull request, with the bench's PATH; the run and its records. */
function run(link: Record<string, unknown>) {
  const file = join(bench.dir, 'task.yaml');
  writeFileSync(
    file,
    stringify({
      name: 'pr',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Add a note, commit it and open a pull request.',
      harness: link,
      timeout: '2m',
      sandbox: 'none',
    }),
  );
  const ran = spawnSync(process.execPath, [BIN, 'run', file], {
    encoding: 'utf8',
    env: { PATH: path, HOME: bench.dir, HARMFLOW_HOME: bench.home.root, ...GIT_IDENTITY },
    timeout: 60_000,
  });
  const id = /^execution (\S+): /m.exec(ran.stdout)?.[1] ?? '';
  const records = readFileSync(bench.home.eventsFile(id), 'utf8')
    .trim()
    .split('\n')
    .flatMap((line): EventRecord[] => {
      const record = parseEventRecord(line);
      return record === undefined ? [] : [record];
    });
  return { ...ran, records };
}

const SCENARIO = {
  steps: [
    { write: { path: 'NOTE.md', content: 'a note\n' } },
    { commit: 'Add a note' },
    { pr: { title: 'Add a note', body: 'A note.' } },
    { end: 'complete' },
  ],
};

describe('harmflow run of a task asking for a pull request', () => {
  it('says once, on the timeline and on stderr, that no gh is on the harness’s PATH', () => {
    const scenario = bench.scenario('note', SCENARIO);
    const ran = run({
      harness: 'claude-code',
      env: { HARMFLOW_SIM_AS: 'claude-code', HARMFLOW_SIM_SCENARIO: scenario },
    });
    const warnings = ran.records.filter((record) => record.type === 'workspace.warning');
    expect(warnings.map((record) => record.data)).toStrictEqual([
      {
        kind: 'no_forge',
        message:
          "no pull request can be opened: the task asks for one, but no `gh` (GitHub's CLI) is on the PATH of claude-code (the primary harness); install it (https://cli.github.com) and give the harness its token (passEnv: [GH_TOKEN])",
      },
    ]);
    // Before the first attempt, so a person can stop the run before any work.
    const types = ran.records.map((record) => record.type);
    expect(types.indexOf('workspace.warning')).toBeLessThan(types.indexOf('attempt.started'));
    expect(ran.stdout.split('\n').filter((line) => line.includes('WARNING'))).toHaveLength(1);
    expect(ran.stdout).toMatch(/WARNING no pull request can be opened: .* claude-code \(the primary harness\)/);
    expect(ran.stderr.trim().split('\n')).toStrictEqual([`harmflow: ${warnings[0]?.data.message}`]);
    expect(ran.status).toBe(EXIT.ok);
  });

  it('says nothing of the kind for a link played through simulate:, which opens it on the fake forge', () => {
    const scenario = bench.scenario('note', SCENARIO);
    const ran = run({ harness: 'claude-code', simulate: scenario });
    expect(ran.records.filter((record) => record.type === 'workspace.warning')).toStrictEqual([]);
    expect(ran.stderr).toBe('');
    const pullRequests = ran.records.flatMap((record) =>
      record.type === 'operation' && record.data.kind === 'pull_request' ? [record.data] : [],
    );
    expect(pullRequests, JSON.stringify(pullRequests)).toMatchObject([
      { ok: true, url: expect.stringMatching(/\/pull\/1$/) },
    ]);
    expect(ran.status).toBe(EXIT.ok);
  });

  it('says at its end, on the timeline and on stderr, that no pull request was opened when every try failed', () => {
    const scenario = bench.scenario('note', SCENARIO);
    // A link's own HARMFLOW_FORGE_DIR wins over the state directory's forge: empty, the fake forge refuses.
    const ran = run({ harness: 'claude-code', simulate: scenario, env: { HARMFLOW_FORGE_DIR: '' } });
    const warnings = ran.records.filter((record) => record.type === 'workspace.warning');
    expect(warnings.map((record) => record.data)).toStrictEqual([
      {
        kind: 'pull_request_failed',
        message:
          "no pull request was opened: `gh pr create --title 'Add a note' --body 'A note.'` failed (exit 4): gh (fake forge): HARMFLOW_FORGE_DIR is not set (the directory that holds pulls.json)",
      },
    ]);
    const types = ran.records.map((record) => record.type);
    expect(types.indexOf('workspace.warning')).toBe(types.indexOf('execution.ended') - 1);
    expect(ran.stdout).toMatch(/WARNING no pull request was opened: /);
    expect(ran.stderr.trim().split('\n')).toStrictEqual([`harmflow: ${warnings[0]?.data.message}`]);
    expect(ran.status).toBe(EXIT.ok);
  });
});
