/**
 * Resolving the git identity an agent's commits carry, against real temporary repositories. HOME
 * points at a folder of the test's own and GIT_CONFIG_NOSYSTEM=1, so this machine's git config
 * never leaks in; each repository says `user.useConfigOnly`, so git never guesses an address from
 * the machine's name (which would make "no identity" depend on the host).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIdentityEnv, harnessGitEnv, resolveGitIdentity, userGitEnv } from '../../src/workspace/git-identity.js';
import { sh, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const ANN = {
  authorName: 'Ann Example',
  authorEmail: 'ann@example.com',
  committerName: 'Ann Example',
  committerEmail: 'ann@example.com',
};

/** A repository that never guesses an identity, and an empty HOME (with Ann's config when `config`). */
async function setUp(config = false): Promise<{ repo: string; host: NodeJS.ProcessEnv }> {
  const repo = await dirs.repo();
  sh(repo, 'config', 'user.useConfigOnly', 'true');
  const home = await dirs.make();
  if (config) writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Ann Example\n\temail = ann@example.com\n');
  return { repo, host: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } };
}

describe("the user's identity (git var with the host's environment)", () => {
  it("is none without config, with git's reason", async () => {
    const { repo, host } = await setUp();
    expect(await resolveGitIdentity(repo, userGitEnv(host))).toEqual({
      ok: false,
      reason: 'no email was given and auto-detection is disabled',
    });
  });

  it('comes from the global config', async () => {
    const { repo, host } = await setUp(true);
    expect(await resolveGitIdentity(repo, userGitEnv(host))).toEqual({ ok: true, identity: ANN });
  });

  it("takes the host's GIT_* variables over the config, as `git commit` does", async () => {
    const { repo, host } = await setUp(true);
    const env = userGitEnv({ ...host, GIT_AUTHOR_NAME: 'Pair', GIT_COMMITTER_EMAIL: 'ci@example.com' });
    expect(await resolveGitIdentity(repo, env)).toEqual({
      ok: true,
      identity: { ...ANN, authorName: 'Pair', committerEmail: 'ci@example.com' },
    });
  });

  it("reads the repository's own config", async () => {
    const { repo, host } = await setUp();
    sh(repo, 'config', 'user.name', 'Repo Person');
    sh(repo, 'config', 'user.email', 'repo@example.com');
    const resolution = await resolveGitIdentity(repo, userGitEnv(host));
    expect(resolution).toMatchObject({
      ok: true,
      identity: { authorName: 'Repo Person', committerEmail: 'repo@example.com' },
    });
  });

  it('ignores variables that would point git at another repository', async () => {
    const { repo, host } = await setUp(true);
    const env = userGitEnv({ ...host, GIT_DIR: '/nowhere/.git' });
    expect(env.GIT_DIR).toBeUndefined();
    expect(await resolveGitIdentity(repo, env)).toEqual({ ok: true, identity: ANN });
  });
});

describe("a harness's identity (what its private HOME lets it see)", () => {
  it("is the given identity, under the link's own env", async () => {
    const { repo, host } = await setUp(true);
    const env = harnessGitEnv(ANN, { env: { GIT_AUTHOR_NAME: 'Review Bot' }, passEnv: [] }, host);
    expect(await resolveGitIdentity(repo, env)).toEqual({ ok: true, identity: { ...ANN, authorName: 'Review Bot' } });
  });

  it('sees no global config: without an identity given, it has none', async () => {
    const { repo, host } = await setUp(true);
    const env = harnessGitEnv(undefined, { env: {}, passEnv: [] }, host);
    expect(env.HOME).toBeUndefined();
    expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
    expect(await resolveGitIdentity(repo, env)).toMatchObject({ ok: false });
  });

  it('reads the host variables the link passes through, and only those', async () => {
    const { repo, host } = await setUp();
    const withIdentity = { ...host, ...gitIdentityEnv(ANN), EMAIL: 'other@example.com' };
    const passed = harnessGitEnv(
      undefined,
      { env: {}, passEnv: ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL'] },
      withIdentity,
    );
    expect(await resolveGitIdentity(repo, passed)).toEqual({ ok: true, identity: ANN });
    expect(passed.EMAIL).toBeUndefined();
  });

  it("takes a link's EMAIL where nothing else gives an address", async () => {
    const { repo, host } = await setUp();
    sh(repo, 'config', '--unset', 'user.useConfigOnly'); // it refuses EMAIL too: git takes that as a guess
    sh(repo, 'config', 'user.name', 'Repo Person');
    const env = harnessGitEnv(undefined, { env: { EMAIL: 'bot@example.com' }, passEnv: [] }, host);
    expect(await resolveGitIdentity(repo, env)).toMatchObject({
      ok: true,
      identity: { authorName: 'Repo Person', authorEmail: 'bot@example.com', committerEmail: 'bot@example.com' },
    });
  });

  it("refuses an empty name the link's env sets, with git's reason", async () => {
    const { repo, host } = await setUp(true);
    const env = harnessGitEnv(ANN, { env: { GIT_AUTHOR_NAME: '' }, passEnv: [] }, host);
    const resolution = await resolveGitIdentity(repo, env);
    expect(resolution).toMatchObject({ ok: false, reason: expect.stringMatching(/empty ident name/) });
  });
});

describe('gitIdentityEnv', () => {
  it('gives the four variables git reads', () => {
    expect(gitIdentityEnv({ ...ANN, committerName: 'CI' })).toEqual({
      GIT_AUTHOR_NAME: 'Ann Example',
      GIT_AUTHOR_EMAIL: 'ann@example.com',
      GIT_COMMITTER_NAME: 'CI',
      GIT_COMMITTER_EMAIL: 'ann@example.com',
    });
  });
});
