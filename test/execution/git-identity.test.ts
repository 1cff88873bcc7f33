/**
 * The git identity at preflight: resolved from the user's git config (a HOME of the test's own,
 * GIT_CONFIG_NOSYSTEM=1), each link's own variables taken into account, and a task whose harnesses
 * could not commit refused before anything is created. The bench's repository says
 * `user.useConfigOnly`, so git never guesses an address from this machine's name.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXIT, TaskFileError } from '../../src/core/errors.js';
import { preflight } from '../../src/execution/preflight.js';
import { type Bench, GIT_IDENTITY, git, makeBench } from './fixture.js';

let bench: Bench;
let scenario: string;
beforeEach(() => {
  bench = makeBench();
  git(bench.repo, 'config', 'user.useConfigOnly', 'true');
  scenario = bench.scenario('done', { steps: [{ end: 'complete' }] });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await bench.cleanup();
});

const ANN = {
  authorName: 'Ann Example',
  authorEmail: 'ann@example.com',
  committerName: 'Ann Example',
  committerEmail: 'ann@example.com',
};

const FIX =
  'set one (git config --global user.name "Your Name" && git config --global user.email "you@example.com") or give GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the env of';

/** The host environment of a user whose HOME is a fresh folder, with Ann's git config when `config`. */
function userEnv(config: boolean, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = join(bench.dir, config ? 'home-ann' : 'home-none');
  mkdirSync(home, { recursive: true });
  if (config) writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ann Example\n\temail = ann@example.com\n');
  return { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', ...extra };
}

/** A link played by the simulator, with `fields` (env, passEnv) of its own. */
function link(harness: 'claude-code' | 'codex', fields: Record<string, unknown> = {}) {
  return { harness, simulate: scenario, ...fields };
}

async function refusal(run: () => Promise<unknown>): Promise<TaskFileError> {
  const error = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TaskFileError);
  return error as TaskFileError;
}

describe('preflight resolves the git identity', () => {
  it("of the user's git config", async () => {
    const task = bench.task({ harness: link('claude-code') });
    expect((await preflight(task, process.env.PATH ?? '', userEnv(true))).gitIdentity).toEqual(ANN);
  });

  it('and refuses, naming the fix, when git knows none and the link gives none', async () => {
    const task = bench.task({ harness: link('claude-code') });
    const error = await refusal(() => preflight(task, process.env.PATH ?? '', userEnv(false)));
    expect(error.message).toBe(
      `no git identity for the agent's commits in ${bench.repo} (git: no email was given and auto-detection is disabled): ${FIX} claude-code (the primary harness)`,
    );
    expect(error.exitCode).toBe(EXIT.invalidTask);
  });

  it("keeps the user's identity when a link overrides part of it (the link wins in its harness)", async () => {
    const task = bench.task({ harness: link('claude-code', { env: { GIT_AUTHOR_NAME: 'Review Bot' } }) });
    expect((await preflight(task, process.env.PATH ?? '', userEnv(true))).gitIdentity).toEqual(ANN);
  });

  it('takes the identity a link passes through from the host (passEnv) when git knows none', async () => {
    const task = bench.task({ harness: link('claude-code', { passEnv: Object.keys(GIT_IDENTITY) }) });
    const checked = await preflight(task, process.env.PATH ?? '', userEnv(false, GIT_IDENTITY));
    expect(checked.gitIdentity).toEqual({
      authorName: 'Engine Test',
      authorEmail: 'engine@harmflow.invalid',
      committerName: 'Engine Test',
      committerEmail: 'engine@harmflow.invalid',
    });
  });

  it("takes the host's own GIT_* variables, as `git commit` in the user's terminal does", async () => {
    const task = bench.task({ harness: link('claude-code') });
    const checked = await preflight(task, process.env.PATH ?? '', userEnv(false, GIT_IDENTITY));
    expect(checked.gitIdentity.authorName).toBe('Engine Test');
  });

  it("takes the primary link's own identity when git knows none and every link gives one", async () => {
    const own = {
      GIT_AUTHOR_NAME: 'Bot',
      GIT_AUTHOR_EMAIL: 'bot@example.com',
      GIT_COMMITTER_NAME: 'CI',
      GIT_COMMITTER_EMAIL: 'ci@example.com',
    };
    const task = bench.task({ harness: link('claude-code', { env: own }), fallbacks: [link('codex', { env: own })] });
    expect((await preflight(task, process.env.PATH ?? '', userEnv(false))).gitIdentity).toEqual({
      authorName: 'Bot',
      authorEmail: 'bot@example.com',
      committerName: 'CI',
      committerEmail: 'ci@example.com',
    });
  });

  it('refuses a link that gives only an author when git knows no committer', async () => {
    const author = { GIT_AUTHOR_NAME: 'Bot', GIT_AUTHOR_EMAIL: 'bot@example.com' };
    const task = bench.task({ harness: link('claude-code', { env: author }) });
    const error = await refusal(() => preflight(task, process.env.PATH ?? '', userEnv(false)));
    expect(error.message).toBe(
      `no git identity for the agent's commits in ${bench.repo} (git: no email was given and auto-detection is disabled): ${FIX} claude-code (the primary harness)`,
    );
  });

  it('names only the links that could not commit', async () => {
    const task = bench.task({
      harness: link('claude-code', { env: GIT_IDENTITY }),
      fallbacks: [link('codex'), link('claude-code', { env: GIT_IDENTITY }), link('codex')],
    });
    const error = await refusal(() => preflight(task, process.env.PATH ?? '', userEnv(false)));
    expect(error.message).toMatch(/ in the env of codex \(fallback 1\) and codex \(fallback 3\)$/);
  });

  it("refuses what a link's env breaks, even when the user has an identity", async () => {
    const task = bench.task({
      harness: link('claude-code'),
      fallbacks: [link('codex', { env: { GIT_AUTHOR_NAME: '' } })],
    });
    const error = await refusal(() => preflight(task, process.env.PATH ?? '', userEnv(true)));
    expect(error.message).toBe(
      `the agent's commits in ${bench.repo} would fail for codex (fallback 1) (git: empty ident name (for <ann@example.com>) not allowed): fix the GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL or EMAIL its env sets`,
    );
  });
});

describe('a task whose harnesses could not commit', () => {
  it('is refused before anything is created: no worktree, no branch, no record', async () => {
    const env = userEnv(false);
    // Both ways the engine may read the host: the environment it is given, and its own.
    vi.stubEnv('HOME', env.HOME);
    vi.stubEnv('GIT_CONFIG_NOSYSTEM', '1');
    for (const name of Object.keys(GIT_IDENTITY)) vi.stubEnv(name, undefined);
    const task = bench.task({ harness: link('claude-code') });
    const error = await refusal(() => bench.run(task, { hostEnv: env }));
    expect(error.message).toMatch(/^no git identity for the agent's commits in /);
    expect(existsSync(join(bench.home.root, 'runs'))).toBe(false);
    expect(existsSync(join(bench.home.root, 'worktrees'))).toBe(false);
    expect(git(bench.repo, 'branch', '--list', 'harmflow/*')).toBe('');
    expect(await bench.store.listExecutions()).toEqual([]);
  });
});
