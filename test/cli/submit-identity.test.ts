/**
 * `harmflow submit` and the agent's git identity (issue 20): a cluster's API node refuses a task
 * whose links give no identity in their env, so `submit` fills in the identity the user has here
 * (`git var` with their config) for each link that gives none. Against the loopback fake of the API
 * (what was sent) and, with PostgreSQL and Redis, a real API node (that it is taken). The user is
 * a HOME of the test's own, with GIT_CONFIG_NOSYSTEM=1. Needs dist/ built (`npm run build`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { userGitIdentity, withUserGitIdentity } from '../../src/cli/submit.js';
import { EXIT } from '../../src/core/errors.js';
import { TaskFile } from '../../src/core/task.js';
import { gitIdentityEnv } from '../../src/workspace/git-identity.js';
import { testClusters } from '../cluster/cluster-processes.js';
import { REDIS_AVAILABLE } from '../cluster/redis.js';
import { newRemote } from '../cluster/workspace-fixture.js';
import { POSTGRES_AVAILABLE } from '../store/postgres.js';
import { sh } from '../workspace/helpers.js';
import { executionRecord, type FakeService, ID, startFakeService, TOKEN } from './fake-service.js';
import { spawnHarmflow } from './spawn-harmflow.js';

const ANN = {
  authorName: 'Ann Example',
  authorEmail: 'ann@example.com',
  committerName: 'Ann Example',
  committerEmail: 'ann@example.com',
};
const ANN_ENV = gitIdentityEnv(ANN);

let dir: string;
let userHome: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'harmflow-submit-identity-'));
  userHome = join(dir, 'user');
  sh(dir, 'init', '-q', userHome); // any folder: a git repository so `user.useConfigOnly` can be said
  sh(userHome, 'config', 'user.useConfigOnly', 'true');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function annHasConfig(): void {
  writeFileSync(join(userHome, '.gitconfig'), '[user]\n\tname = Ann Example\n\temail = ann@example.com\n');
}

/** The user's host environment: their HOME, no system config. */
function userEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: userHome, GIT_CONFIG_NOSYSTEM: '1' };
}

/** Runs `harmflow args` as the user, in their HOME (a repository that never guesses an identity). */
function harmflow(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnHarmflow(args, { env: { ...userEnv(), ...env }, cwd: userHome });
}

/** The task of the one request `fake` got, parsed. */
function sentTask(fake: FakeService): TaskFile {
  expect(fake.requests).toHaveLength(1);
  return TaskFile.parse((fake.requests[0]?.body as { task?: unknown } | undefined)?.task);
}

/** A task file on `repo` whose links give no identity, but the last one's author name. */
function taskFile(repo: string): string {
  const file = join(dir, 'task.yaml');
  writeFileSync(
    file,
    stringify({
      name: 'fix',
      repo,
      baseRef: 'main',
      prompt: 'Fix it.',
      harness: 'codex',
      fallbacks: [{ harness: 'claude-code', env: { GIT_AUTHOR_NAME: 'Review Bot', API: 'x' } }],
    }),
  );
  return file;
}

describe('withUserGitIdentity', () => {
  const file = (harness: unknown) => TaskFile.parse({ name: 't', prompt: 'p', harness });

  it('gives a link with none the four variables', () => {
    expect(withUserGitIdentity(file('codex'), ANN).harness).toEqual({ harness: 'codex', env: ANN_ENV });
  });

  it("keeps what a link's env and passEnv give, and both emails when it gives EMAIL", () => {
    const own = file({
      harness: 'codex',
      env: { GIT_AUTHOR_NAME: 'Bot', EMAIL: 'bot@example.com' },
      passEnv: ['GIT_COMMITTER_NAME'],
    });
    expect(withUserGitIdentity(own, ANN).harness).toEqual({
      harness: 'codex',
      env: { GIT_AUTHOR_NAME: 'Bot', EMAIL: 'bot@example.com' },
      passEnv: ['GIT_COMMITTER_NAME'],
    });
  });

  it('leaves a link that gives all four as it is', () => {
    const given = file({ harness: 'codex', env: ANN_ENV });
    expect(withUserGitIdentity(given, { ...ANN, authorName: 'Other' })).toEqual(given);
  });
});

describe('userGitIdentity', () => {
  it("is the user's, in the task's repository (its own config counts), else in the current folder", async () => {
    annHasConfig();
    const repo = join(dir, 'repo');
    sh(dir, 'init', '-q', repo);
    sh(repo, 'config', 'user.name', 'Repo Name');
    expect(await userGitIdentity(repo, userEnv())).toEqual({
      ...ANN,
      authorName: 'Repo Name',
      committerName: 'Repo Name',
    });
    expect(await userGitIdentity('https://git.example.com/app.git', userEnv())).toEqual(ANN);
  });

  it('is undefined when git knows none', async () => {
    const repo = join(dir, 'repo');
    sh(dir, 'init', '-q', repo);
    sh(repo, 'config', 'user.useConfigOnly', 'true');
    expect(await userGitIdentity(repo, userEnv())).toBeUndefined();
  });
});

describe('harmflow submit', () => {
  let fake: FakeService;
  beforeEach(async () => {
    fake = await startFakeService();
  });
  afterEach(async () => {
    await fake.close();
  });

  it("sends the user's identity in each link's env where it gives none", async () => {
    annHasConfig();
    fake.answer('POST /api/executions', { status: 201, body: { execution: executionRecord('queued') } });
    const ran = await harmflow(['submit', taskFile('https://git.example.com/app.git')], {
      HARMFLOW_URL: fake.url,
      HARMFLOW_TOKEN: TOKEN,
    });
    expect(ran).toEqual({ code: EXIT.ok, stdout: `${ID} queued\n`, stderr: '' });
    const sent = sentTask(fake);
    expect(sent.harness).toEqual({ harness: 'codex', env: ANN_ENV });
    expect(sent.fallbacks).toEqual([
      { harness: 'claude-code', env: { ...ANN_ENV, GIT_AUTHOR_NAME: 'Review Bot', API: 'x' } },
    ]);
  });

  it('sends the task as written when git knows no identity: the service says what is missing', async () => {
    fake.answer('POST /api/executions', { status: 201, body: { execution: executionRecord('queued') } });
    const ran = await harmflow(['submit', taskFile('https://git.example.com/app.git')], {
      HARMFLOW_URL: fake.url,
      HARMFLOW_TOKEN: TOKEN,
    });
    expect(ran.code).toBe(EXIT.ok);
    const sent = sentTask(fake);
    expect(sent.harness).toBe('codex');
  });
});

describe.runIf(POSTGRES_AVAILABLE && REDIS_AVAILABLE)('harmflow submit to a cluster', () => {
  const clusters = testClusters();

  it("is taken with the user's identity, where the same task over HTTP without one is refused", {
    timeout: 30_000,
  }, async () => {
    annHasConfig();
    const url = await clusters.newCluster().apiNode().ready;
    const { remote } = await newRemote();
    const file = taskFile(`file://${remote}`);
    const env = { HARMFLOW_URL: url, HARMFLOW_TOKEN: 'test-token-0123456789' };

    const ran = await harmflow(['submit', file, '--json'], env);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(EXIT.ok);
    expect(JSON.parse(ran.stdout)).toMatchObject({ state: 'queued' });

    // Without an identity to fill in, the API node's refusal is the one line, exit 3.
    rmSync(join(userHome, '.gitconfig'));
    const refused = await harmflow(['submit', file], env);
    expect(refused.code).toBe(EXIT.invalidTask);
    expect(refused.stderr).toBe(
      'harmflow: no git identity for the agent\'s commits: on a cluster each harness\'s env must give GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL default to them), and codex (the primary harness) and claude-code (fallback 1) do not: add them, or submit with `harmflow submit`, which adds the identity your git config gives (git config --global user.name "Your Name" && git config --global user.email "you@example.com")\n',
    );
  });
});
