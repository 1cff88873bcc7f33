/**
 * `harmflow run` and the agent's commits (issue 20): the harness runs with a private HOME, so the
 * user's git config is out of its sight. With no identity in the task's env, the identity the user
 * has in their own terminal is given to the harness and its commit is made; with none anywhere, the
 * run is refused before anything is created, in one line naming the fix. The built bin, a user of
 * the test's own (HOME, GIT_CONFIG_NOSYSTEM=1), the simulator committing as claude-code.
 * Needs dist/ built (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT } from '../../src/core/errors.js';
import { type Bench, git, makeBench } from '../execution/fixture.js';

const BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));

let bench: Bench;
let state: string;
let userHome: string;
beforeEach(() => {
  bench = makeBench();
  // Git never guesses an address from this machine's name: "no identity" is the same everywhere.
  git(bench.repo, 'config', 'user.useConfigOnly', 'true');
  state = join(bench.dir, 'state');
  userHome = join(bench.dir, 'user');
  mkdirSync(userHome);
});
afterEach(async () => {
  await bench.cleanup();
});

/** Runs `harmflow args` as the test's user: their HOME, no system config, nothing else of this machine's. */
function harmflow(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: userHome, GIT_CONFIG_NOSYSTEM: '1', HARMFLOW_HOME: state },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A task whose one link, claude-code played by the simulator, writes a file and commits it; its env gives no identity. */
function committingTask(env: Record<string, string> = {}): string {
  const scenario = bench.scenario('commit', {
    steps: [{ write: { path: 'notes.txt', content: 'noted\n' } }, { commit: 'Add notes' }, { end: 'complete' }],
  });
  const file = join(bench.dir, 'task.yaml');
  writeFileSync(
    file,
    stringify({
      name: 'identity',
      repo: 'repo',
      baseRef: 'main',
      prompt: 'Take a note.',
      harness: { harness: 'claude-code', simulate: scenario, ...(Object.keys(env).length > 0 && { env }) },
      timeout: '2m',
    }),
  );
  return file;
}

function annHasConfig(): void {
  writeFileSync(join(userHome, '.gitconfig'), '[user]\n\tname = Ann Example\n\temail = ann@example.com\n');
}

/** Author and committer of the branch's last commit, and its subject. */
function lastCommit(stdout: string): string {
  const id = /^execution (\w{26}): /m.exec(stdout)?.[1];
  return git(bench.repo, 'log', '-1', '--format=%an <%ae> / %cn <%ce> / %s', `harmflow/identity-${id}`);
}

describe('harmflow run, the agent committing', () => {
  it("commits as the user's git config says, with no identity in the task", { timeout: 60_000 }, () => {
    annHasConfig();
    const run = harmflow(['run', committingTask()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/: succeeded\n/);
    expect(lastCommit(run.stdout)).toBe('Ann Example <ann@example.com> / Ann Example <ann@example.com> / Add notes');
  });

  it("lets the link's own env win for what it sets", { timeout: 60_000 }, () => {
    annHasConfig();
    const run = harmflow(['run', committingTask({ GIT_AUTHOR_NAME: 'Review Bot' })]);
    expect(run.code).toBe(EXIT.ok);
    expect(lastCommit(run.stdout)).toBe('Review Bot <ann@example.com> / Ann Example <ann@example.com> / Add notes');
  });

  it('refuses with one line naming the fix, exit 3, creating nothing, when git knows no identity', () => {
    const run = harmflow(['run', committingTask()]);
    expect(run.code).toBe(EXIT.invalidTask);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `harmflow: no git identity for the agent's commits in ${bench.repo} (git: no email was given and auto-detection is disabled): set one (git config --global user.name "Your Name" && git config --global user.email "you@example.com") or give GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the env of claude-code (the primary harness)\n`,
    );
    expect(existsSync(state)).toBe(false);
    expect(git(bench.repo, 'branch', '--list', 'harmflow/*')).toBe('');
  });
});
